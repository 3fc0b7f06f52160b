/// The backend axis of the model table: which models each backend serves and what each backend takes
/// differently (PROTOCOL.md's "Vertex AI").
extension LiveModel {
    /// A service that serves Live models.
    public enum Backend: String, Sendable, CaseIterable {
        case geminiAPI = "Gemini API"
        case vertex = "Vertex AI"
    }

    /// Whether a backend serves a model.
    public enum Availability: Sendable, Equatable {
        case served
        /// Not confirmed either way: parley lets it through and the service has the last word.
        case unconfirmed
        /// Not served there; the hint says what to use instead.
        case notServed(hint: String)
    }

    /// Availability by the id as the user writes it (aliases have their own rows: a backend knows a model by
    /// one name).
    static let availability: [String: [Backend: Availability]] = [
        "gemini-3.8-live": [.geminiAPI: .served, .vertex: .unconfirmed],
        "gemini-3.8-live-extended-thinking": [.geminiAPI: .served, .vertex: .unconfirmed],
        "gemini-3.1-flash-live-preview": [.geminiAPI: .served, .vertex: .unconfirmed],
        "gemini-2.5-flash-native-audio-preview-12-2025": [
            .geminiAPI: .served, .vertex: .notServed(hint: "Vertex AI serves it as gemini-live-2.5-flash-native-audio"),
        ],
        "gemini-live-2.5-flash-native-audio": [.geminiAPI: .served, .vertex: .served],
    ]

    /// The model Vertex AI serves as generally available, its default there.
    public static let vertexDefaultID = "gemini-live-2.5-flash-native-audio"

    /// The default model on a backend.
    public static func defaultID(on backend: Backend) -> String {
        backend == .vertex ? vertexDefaultID : defaultID
    }

    /// Whether `backend` serves the model named `id` (any form); unknown models are unconfirmed.
    public static func availability(of id: String, on backend: Backend) -> Availability {
        availability[bareID(id)]?[backend] ?? .unconfirmed
    }

    /// The bare id of a model from any of its names: `M`, `models/M`, `publishers/google/models/M`,
    /// `projects/P/locations/L/publishers/google/models/M`.
    public static func bareID(_ name: String) -> String {
        guard let r = name.range(of: "models/", options: .backwards),
            r.lowerBound == name.startIndex || name[name.index(before: r.lowerBound)] == "/"
        else { return name }
        return String(name[r.upperBound...])
    }

    /// Checks the model and the options against a backend: a model it does not serve, or an option it does not
    /// take, is the error (naming the option and the backend).
    public static func check(_ id: String, _ o: ModelOptions, on backend: Backend) throws(ModelOptionError) {
        if case .notServed(let hint) = availability(of: id, on: backend) {
            throw ModelOptionError(option: "--model \(bareID(id))", model: backend.rawValue, hint: "\(backend.rawValue) does not serve it; \(hint)")
        }
        if backend == .vertex, let name = o.functionBehaviors.keys.sorted().first {
            throw ModelOptionError(
                option: "behavior of \(name)", model: backend.rawValue,
                hint: "Vertex AI does not accept a function behavior (functions run synchronously there); remove [tools.behavior]")
        }
    }
}

extension Setup {
    /// The setup as `backend` takes it: Vertex AI refuses a function `behavior`, the Gemini API
    /// `sessionResumption.transparent`.
    public func adapted(to backend: LiveModel.Backend) -> Setup {
        var s = self
        switch backend {
        case .vertex:
            s.tools = tools?.map { tool in
                var t = tool
                t.functionDeclarations = tool.functionDeclarations?.map { d in
                    var d = d
                    d.behavior = nil
                    return d
                }
                return t
            }
        case .geminiAPI:
            s.sessionResumption?.transparent = nil
        }
        return s
    }
}
