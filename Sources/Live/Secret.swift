/// A secret string (API key, ephemeral token, resumption handle). Its description is always redacted, so it
/// cannot leak into logs, error messages, transcripts or the screen by string interpolation.
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself. Read it only where it goes on the wire.
    public let revealed: String

    public init(_ value: String) { revealed = value }
    public init(from decoder: any Decoder) throws {
        revealed = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(revealed)
    }

    public var isEmpty: Bool { revealed.isEmpty }
    public var description: String { "‹redacted›" }
    public var debugDescription: String { "‹redacted›" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// How parley proves who it is to the Live service.
public enum Credential: Sendable, Equatable, CustomStringConvertible {
    /// A Gemini API key, sent in the `x-goog-api-key` header.
    case apiKey(Secret)
    /// An ephemeral token (`auth_tokens/…`), sent as `Authorization: Token …` on the v1alpha constrained method.
    case ephemeralToken(Secret)
    /// An OAuth 2 access token (Vertex AI), sent as `Authorization: Bearer …`.
    case bearer(Secret)
    /// No credential (a local simulator without a configured key).
    case none

    /// Picks the kind from the value: ephemeral tokens are named `auth_tokens/…`.
    public init(_ value: String) {
        self = value.hasPrefix("auth_tokens/") ? .ephemeralToken(Secret(value)) : .apiKey(Secret(value))
    }

    public var description: String {
        switch self {
        case .apiKey: "API key ‹redacted›"
        case .ephemeralToken: "ephemeral token ‹redacted›"
        case .bearer: "OAuth access token ‹redacted›"
        case .none: "no credential"
        }
    }

    /// The HTTP headers that carry the credential on the WebSocket upgrade.
    public var headers: [(name: String, value: String)] {
        switch self {
        case .apiKey(let k): [("x-goog-api-key", k.revealed)]
        case .ephemeralToken(let t): [("Authorization", "Token \(t.revealed)")]
        case .bearer(let t): [("Authorization", "Bearer \(t.revealed)")]
        case .none: []
        }
    }

    /// The default endpoint for this kind of credential.
    public var defaultEndpoint: String {
        switch self {
        case .ephemeralToken:
            "wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained"
        case .apiKey, .bearer, .none:
            "wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
        }
    }
}
