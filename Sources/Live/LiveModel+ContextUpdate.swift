/// The `contextUpdate` column of the model table: which models change their instruction and tools mid-session
/// by message, per backend (PROTOCOL.md "contextUpdate (3.8)"). Every other model gets the change through a
/// resume with the changed setup, which all of them take.
extension LiveModel {
    /// Whether a model takes a message on a backend.
    public enum Support: String, Sendable, Equatable {
        case yes
        case no
        /// Not confirmed either way: parley does not send the message (a refusal closes the connection) and
        /// takes the way every model takes.
        case unconfirmed = "not confirmed"
    }

    /// `contextUpdate` by bare id. 3.8 takes it on the Gemini API (the official SDKs send it); extended
    /// thinking is the same generation but no capture shows it there; 3.8 on Vertex AI is itself unconfirmed.
    /// 3.1 and 2.5 predate the message.
    static let contextUpdateSupport: [String: [Backend: Support]] = [
        "gemini-3.8-live": [.geminiAPI: .yes, .vertex: .unconfirmed],
        "gemini-3.8-live-extended-thinking": [.geminiAPI: .unconfirmed, .vertex: .unconfirmed],
        "gemini-3.1-flash-live-preview": [.geminiAPI: .no, .vertex: .no],
        "gemini-2.5-flash-native-audio-preview-12-2025": [.geminiAPI: .no, .vertex: .no],
        "gemini-live-2.5-flash-native-audio": [.geminiAPI: .no, .vertex: .no],
    ]

    /// Whether the model named `id` (any form) takes `contextUpdate` on `backend`; unknown models are
    /// unconfirmed.
    public static func contextUpdate(of id: String, on backend: Backend) -> Support {
        contextUpdateSupport[bareID(id)]?[backend] ?? .unconfirmed
    }

    /// Whether the model `setup.model` names takes `contextUpdate`, on the backend its name is spelled for
    /// (`models/M` on the Gemini API, `…publishers/google/models/M` on Vertex AI).
    public static func takesContextUpdate(_ setup: Setup) -> Bool {
        contextUpdate(of: setup.model, on: Backend(modelResource: setup.model)) == .yes
    }

    /// `contextUpdate: Gemini API yes · Vertex AI not confirmed`, for `parley models`.
    static func contextUpdateLine(_ id: String) -> String {
        "contextUpdate: " + Backend.allCases.map { "\($0.rawValue) \(contextUpdate(of: id, on: $0).rawValue)" }
            .joined(separator: " · ") + " (elsewhere a context change resumes on a new connection)"
    }
}

extension LiveModel.Backend {
    /// The backend a `setup.model` resource name is spelled for.
    public init(modelResource name: String) {
        self = name.contains("publishers/") ? .vertex : .geminiAPI
    }
}
