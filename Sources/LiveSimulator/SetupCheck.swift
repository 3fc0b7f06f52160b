import Live

/// What the service refuses in a `setup` for a given model, with its close reasons (PROTOCOL.md's "Models"
/// table): the simulator must reject what the real service rejects.
enum SetupCheck {
    /// The close for a setup the model does not take, or nil when the model takes it.
    static func problem(_ setup: Setup, model: LiveModel) -> CloseReason? {
        let name = LiveModel.resourceName(model.id)
        if let thinking = setup.generationConfig?.thinkingConfig {
            switch model.thinking {
            case .none:
                return .unsupportedField("generation_config.thinking_config", model: name)
            case .budget:
                if thinking.thinkingLevel != nil { return .unsupportedField("generation_config.thinking_config.thinking_level", model: name) }
            case .level(let levels):
                if thinking.thinkingBudget != nil { return .unsupportedField("generation_config.thinking_config.thinking_budget", model: name) }
                if let level = thinking.thinkingLevel, !levels.contains(level.lowercased()) {
                    return CloseReason(code: 1007, reason: "Invalid value at 'setup.generation_config.thinking_config.thinking_level' (\(level))")
                }
            }
        }
        if setup.generationConfig?.enableAffectiveDialog != nil, !model.affectiveDialog {
            return .unsupportedField("generation_config.enable_affective_dialog", model: name)
        }
        if let proactive = setup.proactivity?.proactiveAudio {
            switch model.proactiveAudio {
            case .unsupported: return .unsupportedField("proactivity", model: name)
            case .alwaysOn where !proactive:
                return CloseReason(code: 1007, reason: "Proactive audio is always enabled for \(name) and cannot be disabled.")
            default: break
            }
        }
        if !model.asyncFunctions,
            (setup.tools ?? []).contains(where: { ($0.functionDeclarations ?? []).contains { $0.behavior != nil } })
        {
            return .unsupportedField("tools.function_declarations.behavior", model: name)
        }
        return nil
    }
}

extension CloseReason {
    /// 1007: a field this model does not take.
    static func unsupportedField(_ field: String, model: String) -> CloseReason {
        CloseReason(code: 1007, reason: "Invalid JSON payload: setup.\(field) is not supported for \(model). Remove the field or choose a model that supports it.")
    }

    /// 1007: `clientContent` after the conversation started, on a model that takes only realtime input.
    static func clientContentNotAllowed(_ model: String) -> CloseReason {
        CloseReason(code: 1007, reason: "client_content is not supported after the first realtime input for \(model); send text as realtime_input.text instead.")
    }

    /// The reason as a close frame carries it: at most 123 bytes of UTF-8, cut where the limit falls (the
    /// service cuts mid-word too), never inside a character.
    var cutForCloseFrame: CloseReason {
        guard reason.utf8.count > 123 else { return self }
        var cut = ""
        var bytes = 0
        for ch in reason {
            let n = String(ch).utf8.count
            if bytes + n > 123 { break }
            cut.append(ch)
            bytes += n
        }
        return CloseReason(code: code, reason: cut)
    }
}
