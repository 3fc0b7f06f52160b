import Live
import TUI

/// What the model works under, as the user chose it: the persona, the system instruction, thinking and which
/// tools are on. The reducer changes it and asks the session to follow (`ContextChange`); the header and the
/// tool pane are drawn from it. The voice stays `AppState.voice`'s.
struct ContextState: Sendable, Equatable {
    /// The `[[persona]]` entries the menu offers.
    var personas: [Persona] = []
    /// The persona in use (nil: the config's own settings).
    var persona: String?
    var instruction: String?
    var thinking: String?
    /// The instruction was edited by hand since the persona (or the config) set it.
    var edited = false
    /// Every tool the session can offer, parley's own first, then each MCP server's, with whether it is on.
    var tools: [ToolSwitch] = []
    /// The declarations of the functions among `tools`, by name.
    var declarations: [String: FunctionDeclaration] = [:]
    /// The config's own settings, for "none" and for what a persona leaves out.
    var config = Config()
    /// Changes sent to the session and not yet reported, with what follows each once it took effect.
    var pending: [Pending] = []

    struct Pending: Sendable, Equatable {
        var change: ContextChange
        /// A persona being switched to (shown in the header once the change took effect).
        var persona: String?
        /// Its greeting, sent as a turn once the change took effect.
        var greeting: String?
    }

    init() {}

    /// The state a conversation starts in: the config (its starting persona applied) over the registry's tools.
    init(config: Config, registry: ToolRegistry) {
        self.config = config
        personas = config.personas
        let start = config.startingPersona
        persona = start?.name
        instruction = config.systemInstruction
        thinking = config.modelOptions.thinkingLevel
        let own = Config.builtInTools.filter { $0 == "google_search" || registry.tools[$0] != nil }
        let mcp = registry.tools.values.filter { $0.server != nil }
            .sorted { ($0.server ?? "", $0.name) < ($1.server ?? "", $1.name) }
        tools = own.map { ToolSwitch(name: $0, on: config.toolOn($0, server: nil, under: start)) }
            + mcp.map { ToolSwitch(name: $0.name, server: $0.server, on: config.toolOn($0.name, server: $0.server, under: start)) }
        declarations = registry.tools.mapValues(\.declaration)
    }

    var toolsOn: Set<String> { Set(tools.filter(\.on).map(\.name)) }

    /// The `tools` of a setup that offers `on`: one entry with the functions sorted by name (as `ToolRegistry`
    /// declares them), then Google Search.
    func setupTools(_ on: Set<String>) -> [Tool] {
        Self.setupTools(declarations.values.filter { on.contains($0.name) }, googleSearch: on.contains("google_search"))
    }

    static func setupTools(_ functions: [FunctionDeclaration], googleSearch: Bool) -> [Tool] {
        var out: [Tool] = []
        if !functions.isEmpty { out.append(Tool(functionDeclarations: functions.sorted { $0.name < $1.name })) }
        if googleSearch { out.append(Tool(googleSearch: EmptyObject())) }
        return out
    }

    /// The tools that are on under `persona` (nil: the config's own).
    func toolsOn(under persona: Persona?) -> Set<String> {
        Set(tools.filter { config.toolOn($0.name, server: $0.server, under: persona) }.map(\.name))
    }

    mutating func setTools(_ on: Set<String>) {
        for i in tools.indices { tools[i].on = on.contains(tools[i].name) }
    }
}
