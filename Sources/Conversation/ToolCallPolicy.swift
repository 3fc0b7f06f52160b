import Live

/// How each function runs under the chosen model: BLOCKING or NON_BLOCKING (from the setup's declarations and
/// the model's default), and for NON_BLOCKING calls when the result reaches the model (the tool's own choice,
/// then `[tools.scheduling]`, then WHEN_IDLE so a result never cuts the model off unasked). Vertex AI takes no
/// function `behavior` and runs every function synchronously, whatever the model (PROTOCOL.md, "Vertex AI"):
/// there every call is BLOCKING and no response carries a `scheduling`.
package struct ToolCallPolicy: Sendable, Equatable {
    package var model: LiveModel
    /// The backend the setup was made for, read from its model's form (Vertex AI's names a publisher).
    package var backend: LiveModel.Backend = .geminiAPI
    /// Function name → behaviour, as declared in the setup.
    package var declared: [String: LiveModel.FunctionBehavior]
    /// Function name → scheduling (the tool's own, overridden by the config).
    package var scheduling: [String: ToolScheduling]

    /// `scheduling`: function name → when a NON_BLOCKING result reaches the model (the tool's own choice, overridden
    /// by the config).
    package init(model: LiveModel, setup: Setup, scheduling: [String: ToolScheduling]) {
        self.model = model
        backend = Self.backend(of: setup)
        var declared: [String: LiveModel.FunctionBehavior] = [:]
        for d in (setup.tools ?? []).flatMap({ $0.functionDeclarations ?? [] }) {
            declared[d.name] = model.behavior(of: d.name, in: setup)
        }
        self.declared = declared
        self.scheduling = scheduling
    }

    /// Synchronous calls everywhere (models without async functions, and tests).
    package static let blocking = ToolCallPolicy(model: LiveModel.traits(of: "gemini-3.1-flash-live-preview"), declared: [:], scheduling: [:])

    private init(model: LiveModel, declared: [String: LiveModel.FunctionBehavior], scheduling: [String: ToolScheduling]) {
        self.model = model
        self.declared = declared
        self.scheduling = scheduling
    }

    /// `projects/P/locations/L/publishers/google/models/M` (or, in express mode, `publishers/google/models/M`) is
    /// Vertex AI's; `models/M` the Gemini API's.
    package static func backend(of setup: Setup) -> LiveModel.Backend {
        setup.model.hasPrefix("projects/") || setup.model.hasPrefix("publishers/") ? .vertex : .geminiAPI
    }

    /// Whether calls may run NON_BLOCKING at all: the model runs functions asynchronously and the backend takes it.
    package var asyncFunctions: Bool { model.asyncFunctions && backend != .vertex }

    package func behavior(of name: String) -> LiveModel.FunctionBehavior {
        guard asyncFunctions else { return .blocking }
        return declared[name] ?? model.defaultFunctionBehavior ?? .blocking
    }

    /// The `scheduling` a response to `name` carries: nil for BLOCKING calls.
    package func responseScheduling(of name: String) -> ToolScheduling? {
        behavior(of: name) == .nonBlocking ? scheduling[name] ?? .whenIdle : nil
    }
}
