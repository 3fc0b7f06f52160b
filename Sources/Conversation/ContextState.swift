import Live
import TUI

/// What the model works under, as the user chose it: the persona, the system instruction, thinking and which
/// tools are on. The reducer changes it and asks the session to follow (`ContextChange`); the header and the
/// tool pane are drawn from it. The voice stays `AppState.voice`'s.
package struct ContextState: Sendable, Equatable {
    /// The `[[persona]]` entries the menu offers.
    package var personas: [Persona] = []
    /// The persona in use (nil: the config's own settings).
    package var persona: String?
    package var instruction: String?
    package var thinking: String?
    /// The instruction was edited by hand since the persona (or the config) set it.
    package var edited = false
    /// Every tool the session can offer, parley's own first, then each MCP server's, with whether it is on.
    package var tools: [ToolSwitch] = []
    /// The declarations of the functions among `tools`, by name.
    package var declarations: [String: FunctionDeclaration] = [:]
    /// The config's own settings, for "none" and for what a persona leaves out.
    package var base = BaseSettings()
    /// Changes sent to the session and not yet reported, with what follows each once it took effect.
    package var pending: [Pending] = []

    package struct Pending: Sendable, Equatable {
        package var change: ContextChange
        /// A persona being switched to (shown in the header once the change took effect).
        package var persona: String?
        /// Its greeting, sent as a turn once the change took effect.
        package var greeting: String?
    }

    package init() {}

    /// The state a conversation starts in: `base` with the starting persona applied, over the tools the session
    /// can offer (parley's own the registry holds, then each MCP server's, sorted by server and name).
    package init(base: BaseSettings, personas: [Persona], starting: Persona?, ownTools: [String],
         mcpTools: [(name: String, server: String)], declarations: [String: FunctionDeclaration]) {
        self.base = base
        self.personas = personas
        persona = starting?.name
        instruction = base.systemInstruction
        thinking = base.thinking
        tools = ownTools.map { ToolSwitch(name: $0, on: base.toolOn($0, server: nil, under: starting)) }
            + mcpTools.map { ToolSwitch(name: $0.name, server: $0.server, on: base.toolOn($0.name, server: $0.server, under: starting)) }
        self.declarations = declarations
    }

    package var toolsOn: Set<String> { Set(tools.filter(\.on).map(\.name)) }

    /// The `tools` of a setup that offers `on`: one entry with the functions sorted by name (as `ToolRegistry`
    /// declares them), then Google Search.
    package func setupTools(_ on: Set<String>) -> [Tool] {
        Self.setupTools(declarations.values.filter { on.contains($0.name) }, googleSearch: on.contains("google_search"))
    }

    package static func setupTools(_ functions: [FunctionDeclaration], googleSearch: Bool) -> [Tool] {
        var out: [Tool] = []
        if !functions.isEmpty { out.append(Tool(functionDeclarations: functions.sorted { $0.name < $1.name })) }
        if googleSearch { out.append(Tool(googleSearch: EmptyObject())) }
        return out
    }

    /// The tools that are on under `persona` (nil: the config's own).
    package func toolsOn(under persona: Persona?) -> Set<String> {
        Set(tools.filter { base.toolOn($0.name, server: $0.server, under: persona) }.map(\.name))
    }

    mutating func setTools(_ on: Set<String>) {
        for i in tools.indices { tools[i].on = on.contains(tools[i].name) }
    }
}
