import Live

/// A `[[persona]]` entry: a name and what it changes when chosen (`p`, `--persona`). What it leaves out stays
/// as the top level of the config has it, so switching from one persona to another never keeps a leftover of
/// the first.
package struct Persona: Sendable, Equatable {
    package var name: String
    /// The system instruction (`system`, or the contents of `system_file`).
    package var system: String?
    /// Where `system` was read from, for messages.
    package var systemFile: String?
    package var voice: String?
    /// `thinkingConfig.thinkingLevel` for models that take one.
    package var thinking: String?
    /// Tool (or `[[mcp]]` server) name → on or off, over the top level's `[tools]`.
    package var tools: [String: Bool] = [:]
    /// A first turn sent for the user when the persona takes over, so it speaks first.
    package var greeting: String?

    package init(name: String, system: String? = nil, systemFile: String? = nil, voice: String? = nil, thinking: String? = nil,
                 tools: [String: Bool] = [:], greeting: String? = nil) {
        self.name = name
        self.system = system
        self.systemFile = systemFile
        self.voice = voice
        self.thinking = thinking
        self.tools = tools
        self.greeting = greeting
    }

    /// The keys a `[[persona]]` table may hold.
    package static let keys = ["name", "system", "system_file", "voice", "thinking", "tools", "greeting"]

    /// One line for the persona menu: voice, thinking, tool changes and the start of the instruction.
    package var summary: String {
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

extension Persona {
    /// Why `model` cannot take this persona (a thinking level it has not, an instruction larger than its input
    /// window), in one line; nil when it can.
    package func problem(on model: String) -> String? {
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
    package static let none = "none"
}

/// The config's own settings, for the persona "none" and for what a persona leaves out (`Config.baseSettings`).
package struct BaseSettings: Sendable, Equatable {
    package var systemInstruction: String?
    package var voice = Voice.defaultName
    package var thinking: String?
    /// parley's own tools (and `google_search`) that `[tools]` turns on.
    package var builtInToolsOn: Set<String> = []

    package init() {}

    package init(systemInstruction: String?, voice: String, thinking: String?, builtInToolsOn: Set<String>) {
        self.systemInstruction = systemInstruction
        self.voice = voice
        self.thinking = thinking
        self.builtInToolsOn = builtInToolsOn
    }

    /// parley's own tools, by the names the model sees (and `[tools]` and `[persona.tools]` use).
    package static let builtInTools = ["get_current_time", "list_directory", "read_file", "run_shell_command", "google_search"]

    /// Whether a tool is on under `persona` (nil: the config's own settings): the persona's word for the tool
    /// or its MCP server first, then `[tools]` (and `google_search`); an MCP server's tools are on by default.
    package func toolOn(_ name: String, server: String?, under persona: Persona?) -> Bool {
        if let v = persona?.tools[name] ?? server.flatMap({ persona?.tools[$0] }) { return v }
        return Self.builtInTools.contains(name) ? builtInToolsOn.contains(name) : server != nil
    }
}
