import Foundation
import Live
import TOMLKit

/// A `[[persona]]` entry: a name and what it changes when chosen (`p`, `--persona`). What it leaves out stays
/// as the top level of the config has it, so switching from one persona to another never keeps a leftover of
/// the first.
struct Persona: Sendable, Equatable {
    var name: String
    /// The system instruction (`system`, or the contents of `system_file`).
    var system: String?
    /// Where `system` was read from, for messages.
    var systemFile: String?
    var voice: String?
    /// `thinkingConfig.thinkingLevel` for models that take one.
    var thinking: String?
    /// Tool (or `[[mcp]]` server) name → on or off, over the top level's `[tools]`.
    var tools: [String: Bool] = [:]
    /// A first turn sent for the user when the persona takes over, so it speaks first.
    var greeting: String?

    /// The keys a `[[persona]]` table may hold.
    static let keys = ["name", "system", "system_file", "voice", "thinking", "tools", "greeting"]

    /// One line for the persona menu: voice, thinking, tool changes and the start of the instruction.
    var summary: String {
        var parts: [String] = []
        if let voice { parts.append(voice) }
        if let thinking { parts.append("thinking \(thinking)") }
        let on = tools.filter(\.value).keys.sorted(), off = tools.filter { !$0.value }.keys.sorted()
        if !on.isEmpty { parts.append("+" + on.joined(separator: " +")) }
        if !off.isEmpty { parts.append("−" + off.joined(separator: " −")) }
        if let system {
            let flat = system.split(whereSeparator: \.isNewline).joined(separator: " ")
            parts.append("“" + (flat.count > 60 ? flat.prefix(59) + "…" : flat) + "”")
        }
        return parts.isEmpty ? "the config's own settings" : parts.joined(separator: " · ")
    }
}

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

    /// parley's own tools, by the names the model sees (and `[tools]` and `[persona.tools]` use).
    static let builtInTools = ["get_current_time", "list_directory", "read_file", "run_shell_command", "google_search"]

    /// Whether a tool is on under `persona` (nil: the config's own settings): the persona's word for the tool
    /// or its MCP server first, then `[tools]` (and `google_search`); an MCP server's tools are on by default.
    func toolOn(_ name: String, server: String?, under persona: Persona?) -> Bool {
        if let v = persona?.tools[name] ?? server.flatMap({ persona?.tools[$0] }) { return v }
        switch name {
        case "get_current_time": return tools.currentTime
        case "read_file": return tools.readFile
        case "list_directory": return tools.listDirectory
        case "run_shell_command": return tools.shell
        case "google_search": return googleSearch
        default: return server != nil
        }
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
            p.tools.keys.sorted().filter { registry.tools[$0] == nil && !servers.contains($0) && !Config.builtInTools.contains($0) }
                .map { "persona \(p.name): no tool or MCP server named \($0) — the setting is ignored" }
        }
    }
}

extension Persona {
    /// Why `model` cannot take this persona (a thinking level it has not, an instruction larger than its input
    /// window), in one line; nil when it can.
    func problem(on model: String) -> String? {
        if let thinking {
            do {
                try LiveModel.traits(of: model).check(ModelOptions(thinkingLevel: thinking))
            } catch {
                return "persona \(name): thinking = \"\(thinking)\" is not accepted by \(error.model): \(error.hint)"
            }
        }
        if let system, let refusal = Self.instructionRefusal(system, model: model) { return "persona \(name): \(refusal)" }
        return nil
    }

    /// Why an instruction is refused before it is sent: it would not fit the model's input window (the service
    /// closes the connection with 1007 and the token count for one that does not).
    static func instructionRefusal(_ text: String, model: String) -> String? {
        let size = TurnSize(text: text, model: model)
        guard !size.fits else { return nil }
        return "the instruction is about \(size.estimatedTokens) tokens (\(TurnSize.size(size.bytes))) and \(model) takes at most \(size.limit) tokens of input"
    }

    /// The menu entry and `--persona` name that goes back to the config's own settings.
    static let none = "none"
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
