/// Which Google service parley talks to, and how that service names its endpoint and its models (as the
/// official google-genai SDKs build them).
public enum LiveBackend: Sendable, Equatable, CustomStringConvertible {
    /// Google AI Studio's Gemini API: an API key or an ephemeral token.
    case geminiAPI
    /// Vertex AI in a project and a location, with an OAuth bearer token from application default credentials.
    case vertex(project: String, location: String)
    /// Vertex AI express mode: an API key, no project.
    case vertexExpress

    /// The location the SDKs use when none is given.
    public static let defaultVertexLocation = "global"
    /// The Live method's path on Vertex AI (the SDKs default to v1beta1).
    public static let vertexPath = "/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent"

    public var description: String {
        switch self {
        case .geminiAPI: "the Gemini API"
        case .vertex(let project, let location): "Vertex AI (project \(project), location \(location))"
        case .vertexExpress: "Vertex AI express mode"
        }
    }

    /// The column of the model table this backend reads.
    public var kind: LiveModel.Backend {
        switch self {
        case .geminiAPI: .geminiAPI
        case .vertex, .vertexExpress: .vertex
        }
    }

    /// The service's host as the SDKs pick it: `{location}-aiplatform.googleapis.com`;
    /// `aiplatform.googleapis.com` for the global location and express mode; `aiplatform.{us|eu}.rep.googleapis.com`
    /// for the multi-regions.
    public var vertexHost: String? {
        switch self {
        case .geminiAPI: nil
        case .vertexExpress: "aiplatform.googleapis.com"
        case .vertex(_, "global"): "aiplatform.googleapis.com"
        case .vertex(_, let location) where ["us", "eu"].contains(location): "aiplatform.\(location).rep.googleapis.com"
        case .vertex(_, let location): "\(location)-aiplatform.googleapis.com"
        }
    }

    /// The WebSocket URL for a credential when no `--endpoint` overrides it.
    public func defaultEndpoint(for credential: Credential) -> String {
        guard let host = vertexHost else { return credential.defaultEndpoint }
        return "wss://\(host)\(Self.vertexPath)"
    }

    /// The model as `setup.model` names it: `models/M` on the Gemini API,
    /// `projects/P/locations/L/publishers/google/models/M` on Vertex AI, `publishers/google/models/M` in express
    /// mode. Takes a bare id or any of these forms.
    public func modelResource(_ model: String) -> String {
        let id = LiveModel.bareID(model)
        switch self {
        case .geminiAPI: return "models/\(id)"
        case .vertexExpress: return "publishers/google/models/\(id)"
        case .vertex(let project, let location): return "projects/\(project)/locations/\(location)/publishers/google/models/\(id)"
        }
    }
}
