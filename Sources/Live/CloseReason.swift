/// How a connection ended: the WebSocket close code, the server's reason text, and what the user should do.
public struct CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// The WebSocket close code (1006 when no close frame arrived).
    public let code: Int
    /// The server's reason text, verbatim.
    public let reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// No close frame: the network dropped.
    public static func dropped(_ detail: String = "") -> CloseReason { CloseReason(code: 1006, reason: detail) }

    /// Whether retrying can help. 1007 and 1008 (bad key, bad request, unknown model) never get better.
    public var isFatal: Bool {
        switch code {
        case 1007, 1008: return true
        case 1011: return isQuota
        default: return false
        }
    }

    var isQuota: Bool { reason.localizedCaseInsensitiveContains("quota") }

    /// What to tell the user, from the table of close codes seen in the field.
    public var hint: String {
        let r = reason.lowercased()
        switch code {
        case 1000, 1001: return "the server ended the connection; parley reconnects with the resumption handle"
        case 1006: return "the network dropped; parley reconnects with backoff"
        case 1007:
            if r.contains("api key") { return "fix the API key (GEMINI_API_KEY) and start again; parley will not retry" }
            if r.contains("location") { return "the Gemini API is not available where you are; parley will not retry" }
            return "the request was rejected: check the model options and the key; parley will not retry"
        case 1008: return "the model name is wrong or does not support Live (try --model \(LiveModel.defaultID)); parley will not retry"
        case 1009: return "a message was too large for the connection"
        case 1011:
            if isQuota { return "quota exhausted: wait a while or check billing" }
            return "the service had an internal error; parley retries with backoff"
        default: return "the connection closed unexpectedly"
        }
    }

    public var description: String {
        reason.isEmpty ? "closed with code \(code): \(hint)" : "closed with code \(code) (\(reason)): \(hint)"
    }
}
