import Foundation
import Live
import Conversation
import TOMLKit

extension Config {
    /// The persona named `name` (case-insensitive), or an error that lists the names there are.
    func persona(named name: String) throws(ParleyError) -> Persona {
        if let p = personas.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) { return p }
        let known = personas.isEmpty
            ? "the config defines none (add [[persona]] entries; see the README)"
            : "known: " + personas.map(\.name).joined(separator: ", ")
        throw ParleyError.usage("no persona named \(name) — \(known)")
    }

    /// Makes `persona` the starting point: its instruction, voice, thinking and tools replace the top level's.
    mutating func adopt(_ persona: Persona) {
        self.persona = persona.name
        if let s = persona.system { systemInstruction = s }
        if let v = persona.voice {
            voice = v
            voiceChosen = true
        }
        if let t = persona.thinking { modelOptions.thinkingLevel = t }
    }

    /// `[[persona]]` tables, checked as they are read: unknown keys, `system` with `system_file`, unknown
    /// voices and repeated names are errors that name the file and the entry.
    mutating func applyPersonas(_ table: TOMLTable, reader: ConfigReader, file: String) throws {
        guard let value = table["persona"] else { return }
        guard let list = value.array else {
            throw reader.error("persona", "must be [[persona]] tables, each with name = \"…\"")
        }
        personas = []
        for (i, entry) in list.enumerated() {
            let at = reader.arrayTableLine(named: "persona", index: i)
            func fail(_ what: String) -> ParleyError {
                .config(file: file, line: at, key: "[[persona]] entry \(i + 1)", problem: what)
            }
            guard let t = entry.table else { throw fail("must be a [[persona]] table") }
            guard let rawName = t["name"] else { throw fail("needs name = \"…\"") }
            guard let name = rawName.string?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                throw fail("name must be a string in quotes, not empty")
            }
            func bad(_ key: String, _ what: String) -> ParleyError {
                .config(file: file, line: reader.lineInArrayTable(key, named: "persona", index: i) ?? at,
                        key: "[[persona]] \(name)", problem: "\(key): \(what)")
            }
            for key in t.keys.sorted() where !Persona.keys.contains(key) {
                throw bad(key, "unknown setting (known: \(Persona.keys.joined(separator: ", ")))")
            }
            if name.caseInsensitiveCompare(Persona.none) == .orderedSame {
                throw bad("name", "\"\(Persona.none)\" is kept for going back to the config's own settings; choose another name")
            }
            if personas.contains(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
                throw bad("name", "a second persona with this name (names must differ, ignoring case)")
            }
            var p = Persona(name: name)
            func string(_ key: String) throws -> String? {
                guard let v = t[key] else { return nil }
                guard let s = v.string else { throw bad(key, "must be a string in quotes") }
                return s
            }
            if t["system"] != nil, t["system_file"] != nil {
                throw bad("system_file", "give system or system_file, not both")
            }
            if let s = try string("system") { p.system = s }
            if let path = try string("system_file") {
                let full = Self.path(path, besides: file)
                guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
                    throw bad("system_file", "cannot read \(full)")
                }
                p.system = text.trimmingCharacters(in: .whitespacesAndNewlines)
                p.systemFile = full
            }
            if let v = try string("voice") {
                guard let voice = Voice.named(v) else { throw bad("voice", "no voice named \(v) (see parley voices)") }
                p.voice = voice.name
            }
            if let v = try string("thinking") { p.thinking = v.lowercased() }
            if let g = try string("greeting") {
                guard !g.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw bad("greeting", "must not be empty") }
                p.greeting = g
            }
            if let tv = t["tools"] {
                guard let tt = tv.table else { throw bad("tools", "must be a table of tool = true or false ([persona.tools])") }
                for tool in tt.keys.sorted() {
                    guard let on = tt[tool]?.bool else { throw bad("tools.\(tool)", "must be true or false") }
                    p.tools[tool] = on
                }
            }
            personas.append(p)
        }
    }

    /// A path from the config: `~/` is the home directory, a relative path is beside the config file.
    static func path(_ path: String, besides file: String) -> String {
        if path.hasPrefix("~/") { return NSHomeDirectory() + path.dropFirst(1) }
        if path.hasPrefix("/") { return path }
        return ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
    }
}

extension Config {
    /// The `[[persona]]` the conversation starts as, if any.
    var startingPersona: Persona? { persona.flatMap { name in personas.first { $0.name == name } } }

    /// The top level's instruction, voice, thinking and tools: what a persona leaves out falls back to.
    var baseSettings: BaseSettings {
        let on: [(String, Bool)] = [
            ("get_current_time", tools.currentTime), ("read_file", tools.readFile), ("list_directory", tools.listDirectory),
            ("run_shell_command", tools.shell), ("google_search", googleSearch),
        ]
        return BaseSettings(systemInstruction: systemInstruction, voice: voice, thinking: modelOptions.thinkingLevel,
                            builtInToolsOn: Set(on.filter(\.1).map(\.0)))
    }

    /// Whether a tool is on under `persona` (nil: the config's own settings); see `BaseSettings.toolOn`.
    func toolOn(_ name: String, server: String?, under persona: Persona?) -> Bool {
        baseSettings.toolOn(name, server: server, under: persona)
    }

    /// `[tools]` with every built-in tool that one of `personas` turns on switched on too, so the registry holds
    /// what a persona may offer later (which of them is on is `toolOn`'s answer, not the registry's).
    func toolSettings(offering personas: [Persona]) -> ToolSettings {
        var t = tools
        for p in personas {
            if p.tools["get_current_time"] == true { t.currentTime = true }
            if p.tools["read_file"] == true { t.readFile = true }
            if p.tools["list_directory"] == true { t.listDirectory = true }
            if p.tools["run_shell_command"] == true { t.shell = true }
        }
        return t
    }

    /// Names in `[persona.tools]` that are neither a tool of `registry` nor an MCP server, as lines for the
    /// launch's problems (MCP tools are only known once their servers run).
    func unknownPersonaTools(in registry: ToolRegistry) -> [String] {
        let servers = Set(mcp.map(\.name))
        return personas.flatMap { p in
            p.tools.keys.sorted().filter { registry.tools[$0] == nil && !servers.contains($0) && !BaseSettings.builtInTools.contains($0) }
                .map { "persona \(p.name): no tool or MCP server named \($0) — the setting is ignored" }
        }
    }
}

extension ConfigReader {
    /// The line of the `index`th `[[name]]` header.
    func arrayTableLine(named name: String, index: Int) -> Int? {
        var seen = -1
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let l = raw.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix("[["), l.dropFirst(2).trimmingCharacters(in: .whitespaces).hasPrefix(name) else { continue }
            let inner = l.dropFirst(2).prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)
            guard inner == name else { continue }
            seen += 1
            if seen == index { return i + 1 }
        }
        return nil
    }

    /// The line where `key =` is set inside the `index`th `[[name]]` table (or its sub-tables).
    func lineInArrayTable(_ key: String, named name: String, index: Int) -> Int? {
        guard let start = arrayTableLine(named: name, index: index) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let leaf = key.split(separator: ".").last.map(String.init) ?? key
        for (i, raw) in lines.enumerated().dropFirst(start) {
            let l = raw.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("[[") { break }
            if l.hasPrefix("["), !l.hasPrefix("[\(name).") { break }
            if l.hasPrefix(leaf), l.dropFirst(leaf.count).trimmingCharacters(in: .whitespaces).hasPrefix("=") { return i + 1 }
        }
        return nil
    }
}
