import Conversation
import Live

extension ToolCallPolicy {
    /// The policy for a setup over `registry`'s tools: each tool's own scheduling, overridden by `configured`.
    init(model: LiveModel, setup: Setup, registry: ToolRegistry, configured: [String: ToolScheduling]) {
        var scheduling: [String: ToolScheduling] = [:]
        for name in registry.tools.keys { scheduling[name] = registry.scheduling(of: name) }
        scheduling.merge(configured) { _, config in config }
        self.init(model: model, setup: setup, scheduling: scheduling)
    }

    /// `ask` answers in one turn, so its tools run BLOCKING (the result is in the answer) unless the config
    /// names a behaviour, on models that take one at all.
    static func oneTurn(_ options: ModelOptions, model: LiveModel, tools: ToolRegistry) -> ModelOptions {
        guard model.asyncFunctions else { return options }
        var o = options
        for name in tools.tools.keys where o.functionBehaviors[name] == nil { o.functionBehaviors[name] = .blocking }
        return o
    }
}
