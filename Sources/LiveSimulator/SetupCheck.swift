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

extension SetupCheck {
    /// The close for a system instruction over the model's input window (tokens counted as parley estimates
    /// them: UTF-8 bytes / 4), or nil.
    static func problem(instruction: Content?, model: LiveModel) -> CloseReason? {
        guard let text = instruction?.text else { return nil }
        let tokens = ContextChange.estimatedTokens(text)
        return tokens > model.inputTokenLimit ? .tooManyTokens(tokens, limit: model.inputTokenLimit) : nil
    }

    /// The model id from a Vertex AI name: `projects/P/locations/L/publishers/google/models/M` or, in express
    /// mode, `publishers/google/models/M`; nil for any other form.
    static func vertexModelID(_ name: String) -> String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let tail: ArraySlice<String>
        if parts.count == 8, parts[0] == "projects", parts[2] == "locations", !parts[1].isEmpty, !parts[3].isEmpty {
            tail = parts[4...]
        } else if parts.count == 4 {
            tail = parts[0...]
        } else {
            return nil
        }
        let t = Array(tail)
        guard t[0] == "publishers", t[1] == "google", t[2] == "models", !t[3].isEmpty else { return nil }
        return t[3]
    }

    /// What one backend refuses that the other takes: a function `behavior` on Vertex AI,
    /// `sessionResumption.transparent` on the Gemini API.
    static func problem(_ setup: Setup, backend: LiveModel.Backend) -> CloseReason? {
        switch backend {
        case .vertex:
            if (setup.tools ?? []).contains(where: { ($0.functionDeclarations ?? []).contains { $0.behavior != nil } }) {
                return CloseReason(code: 1007, reason: "Invalid JSON payload received. Unknown name \"behavior\" at 'setup.tools[0].function_declarations[0]': Cannot find field.")
            }
        case .geminiAPI:
            if setup.sessionResumption?.transparent != nil {
                return CloseReason(code: 1007, reason: "Invalid JSON payload received. Unknown name \"transparent\" at 'setup.session_resumption': Cannot find field.")
            }
        }
        return nil
    }
}

/// What a connection's headers carried, for the checks made once the setup arrives.
enum PresentedCredential: Sendable, Equatable {
    case none
    case bearer(String)
    case ephemeral(String)
    /// An API key or another scheme.
    case other
}

extension CloseReason {
    /// 1008: a Vertex AI model name that does not exist or is not this project's (spelled "Publisher model"
    /// since 2026-07).
    static func publisherModelNotFound(_ model: String) -> CloseReason {
        CloseReason(code: 1008, reason: "Publisher model `\(model)` was not found or your project does not have access to it.")
    }

    /// A missing, expired or revoked OAuth access token.
    static let invalidCredentials = CloseReason(
        code: 1008, reason: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")

    /// 1007: a field this model does not take.
    static func unsupportedField(_ field: String, model: String) -> CloseReason {
        CloseReason(code: 1007, reason: "Invalid JSON payload: setup.\(field) is not supported for \(model). Remove the field or choose a model that supports it.")
    }

    /// 1007: `clientContent` after the conversation started, on a model that takes only realtime input.
    static func clientContentNotAllowed(_ model: String) -> CloseReason {
        CloseReason(code: 1007, reason: "client_content is not supported after the first realtime input for \(model); send text as realtime_input.text instead.")
    }

    /// 1007: `contextUpdate` on a model that does not take it. The service's text for an unknown message field
    /// (as proto JSON parsing words it); no capture of this refusal is published, so the wording is assumed.
    static func contextUpdateNotSupported(_ model: String) -> CloseReason {
        CloseReason(code: 1007, reason: "Invalid JSON payload received. Unknown name \"contextUpdate\": Cannot find field. (\(model))")
    }

    /// 1007: the input (here the system instruction) is over the model's window.
    static func tooManyTokens(_ count: Int, limit: Int) -> CloseReason {
        CloseReason(code: 1007, reason: "The input token count (\(count)) exceeds the maximum number of tokens allowed (\(limit)).")
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
