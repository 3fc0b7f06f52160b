import Live

/// The close codes and reason texts the real service uses (PROTOCOL.md's table), so clients can match on both.
extension CloseReason {
    /// 1007: a malformed or disallowed request.
    static let invalidArgument = CloseReason(code: 1007, reason: "Request contains an invalid argument.")
    /// 1007: the API key does not match.
    static let invalidAPIKey = CloseReason(code: 1007, reason: "API key not valid. Please pass a valid API key.")
    /// 1008: a resumption handle the service does not know (or that expired).
    static let entityNotFound = CloseReason(code: 1008, reason: "Requested entity was not found")
    /// 1000: the connection's time ran out after `goAway`.
    static let normal = CloseReason(code: 1000, reason: "")

    /// 1008: the model does not exist or does not support the Live API.
    static func modelNotFound(_ model: String) -> CloseReason {
        CloseReason(code: 1008, reason: "\(model) is not found for API version v1beta, or is not supported for bidiGenerateContent")
    }
}
