import Conversation
import Live

/// The conversation's starting values, read from the config.
extension AppState {
    init(config: Config, demo: Bool, audioAvailable: Bool, kitty: Bool) {
        self.init(model: config.model, voice: config.voice, mode: config.mode, usage: UsageState(config: config),
                  demo: demo, audioAvailable: audioAvailable, kitty: kitty)
    }
}

extension UsageState {
    init(config: Config) {
        self.init(
            model: config.model, backend: config.backend, table: config.priceTable,
            slidingWindow: config.setup(tools: [], manualActivity: false).contextWindowCompression?.slidingWindow != nil,
            budget: config.budget)
    }
}

extension ContextState {
    /// The config (its starting persona applied) over the registry's tools.
    init(config: Config, registry: ToolRegistry) {
        let own = BaseSettings.builtInTools.filter { $0 == "google_search" || registry.tools[$0] != nil }
        let mcp = registry.tools.values.compactMap { t in t.server.map { (name: t.name, server: $0) } }
            .sorted { ($0.server, $0.name) < ($1.server, $1.name) }
        self.init(base: config.baseSettings, personas: config.personas, starting: config.startingPersona,
                  ownTools: own, mcpTools: mcp, declarations: registry.tools.mapValues(\.declaration))
    }
}
