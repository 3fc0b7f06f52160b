import Foundation

/// What a close means for the conversation, from PROTOCOL.md's "Close codes seen in the field".
public enum CloseClass: Sendable, Equatable {
    /// The network or the service hiccuped: reconnect with the handle and carry on.
    case transient
    /// The service no longer knows the session behind the handle: start a fresh session seeded with the
    /// transcript. `resumeOnceFirst` for the ambiguous "Requested entity was not found", which has also been seen
    /// after a tool response on a healthy session: try the handle once more before giving it up.
    case refusedHandle(resumeOnceFirst: Bool)
    /// The API key was refused.
    case fatalKey
    /// The request cannot succeed as it is (model, voice, modality, sizes).
    case fatalRequest
    /// The account cannot be used now (API disabled, access denied, quota, billing, spending limit).
    case fatalAccount
    /// The credential in use is spent or expired (an ephemeral token used up, an access token refused): never
    /// retried with the same credential; a new one (a token command, application default credentials) may go on.
    case credential

    /// Whether retrying with the same credential can never help.
    public var isFatal: Bool {
        switch self {
        case .transient, .refusedHandle: false
        case .fatalKey, .fatalRequest, .fatalAccount, .credential: true
        }
    }
}

/// One row of the close table: which closes it matches, what they mean, and what to tell the user.
public struct CloseRule: Sendable {
    /// How the reason text must begin (compared without case). Reasons are cut at 123 bytes, often mid-word,
    /// so rules look only at how a reason starts.
    public enum Match: Sendable {
        case any
        case empty
        case prefix([String])
        /// The words appear in the first part of the reason (for texts whose opening varies, e.g. quota
        /// messages); still never relies on the tail.
        case mentions([String])
    }

    /// The close code, or nil for any code.
    public let code: Int?
    public let match: Match
    public let kind: CloseClass
    /// What happened, for people.
    public let message: String
    /// What to do (or what parley does).
    public let hint: String

    func matches(_ reason: CloseReason) -> Bool {
        if let code, code != reason.code { return false }
        let text = reason.reason.trimmingCharacters(in: .whitespaces).lowercased()
        switch match {
        case .any: return true
        case .empty: return text.isEmpty
        case .prefix(let ps): return ps.contains { text.hasPrefix($0.lowercased()) }
        case .mentions(let ws):
            let head = text.prefix(80)
            return ws.contains { head.contains($0.lowercased()) }
        }
    }
}

/// The one table of closes parley knows, in the order rules are tried (the first that matches wins), and the
/// service's own reason texts that the simulator sends, so client and simulator cannot drift apart.
public enum CloseTable {
    static let reconnects = "parley reconnects and resumes the conversation"
    static let noRetry = "parley will not retry"

    /// The rules, first match wins.
    public static let rules: [CloseRule] = [
        // Key problems come first: their texts are the same whatever the code.
        CloseRule(code: nil, match: .prefix(["API key not valid", "API Key not found", "API key expired", "API_KEY_INVALID"]),
                  kind: .fatalKey, message: "the API key was refused",
                  hint: "set GEMINI_API_KEY to a valid key from https://aistudio.google.com/apikey and start again; \(noRetry)"),
        // Spent or expired credentials, before the 1011 rules that would retry them.
        CloseRule(code: 1011, match: .prefix(["Token has been used too many times", "auth token has expired"]),
                  kind: .credential, message: "the ephemeral token is used up or has expired",
                  hint: "an ephemeral token is single use: each new session needs a new one. Set [auth] token_command (or --token-command) to a command that prints a fresh token and parley gets one whenever it needs it; \(noRetry) with this token"),
        CloseRule(code: nil, match: .prefix(["Request had invalid authentication credentials"]),
                  kind: .credential, message: "the access token was refused (expired or revoked)",
                  hint: "parley gets a new token from application default credentials; if this repeats, run `gcloud auth application-default login`"),
        // Transient.
        CloseRule(code: 1011, match: .prefix(["Internal error", "Deadline expired", "The service is currently unavailable", "Service unavailable", "unavailable"]),
                  kind: .transient, message: "the service had a passing internal error or reached the connection's time limit",
                  hint: reconnects),
        CloseRule(code: 1008, match: .empty, kind: .transient,
                  message: "the connection reached its time limit", hint: reconnects),
        CloseRule(code: 1000, match: .any, kind: .transient, message: "the server ended the connection", hint: reconnects),
        CloseRule(code: 1001, match: .any, kind: .transient, message: "the server is going away", hint: reconnects),
        // parley's own: no credential for the connection (LiveSession), the reason says which source failed.
        CloseRule(code: 1006, match: .prefix(["no credential:"]), kind: .transient,
                  message: "parley could not get a credential for the connection",
                  hint: "parley tries again with the next connection (r: now); the reason says what failed and what to fix"),
        CloseRule(code: 1006, match: .any, kind: .transient,
                  message: "the network dropped or the server cannot be reached",
                  hint: "parley keeps retrying until the network is back, then resumes the conversation"),
        // Refused handles.
        CloseRule(code: 1008, match: .prefix(["BidiGenerateContent session expired", "BidiGenerateContent session not found"]),
                  kind: .refusedHandle(resumeOnceFirst: false),
                  message: "the service no longer knows this conversation (its session expired or was lost)",
                  hint: "parley starts a new session seeded with the transcript so far"),
        CloseRule(code: 1008, match: .prefix(["Requested entity was not found"]),
                  kind: .refusedHandle(resumeOnceFirst: true),
                  message: "the service could not find this conversation",
                  hint: "parley resumes once more, else starts a new session seeded with the transcript so far"),
        // Account.
        CloseRule(code: 1008, match: .prefix(["Generative Language API has not been used", "Generative Language API is disabled"]),
                  kind: .fatalAccount, message: "the Generative Language API is not enabled for this key's project",
                  hint: "enable it for that project in the Google Cloud console (or use a key from https://aistudio.google.com/apikey), then start again; \(noRetry)"),
        CloseRule(code: 1008, match: .mentions(["denied access", "permission denied", "has been suspended"]),
                  kind: .fatalAccount, message: "the service denied this project access",
                  hint: "check the project and key in the Google Cloud console; \(noRetry)"),
        CloseRule(code: 1011, match: .mentions(["quota", "resource has been exhausted", "resource exhausted", "billing", "spending", "spend cap", "rate limit"]),
                  kind: .fatalAccount, message: "the project's quota, billing or spending limit stops this request",
                  hint: "wait for the quota to reset, or check billing and spending limits at https://aistudio.google.com; \(noRetry)"),
        // Requests that cannot succeed.
        CloseRule(code: 1008, match: .prefix(["models/", "Publisher Model"]),
                  kind: .fatalRequest, message: "the model name is wrong or the model does not support Live",
                  hint: "try --model \(LiveModel.defaultID) (parley models lists them); \(noRetry)"),
        CloseRule(code: 1008, match: .prefix(["Operation is not implemented"]),
                  kind: .fatalRequest, message: "the model does not support something this session asked for",
                  hint: "try another --model or fewer options; \(noRetry)"),
        CloseRule(code: 1007, match: .any, kind: .fatalRequest, message: "the service rejected the request",
                  hint: "check the options the reason names (voice, model, modality, system instruction); \(noRetry)"),
        CloseRule(code: 1008, match: .any, kind: .fatalRequest, message: "the service refused the request",
                  hint: "check --model and the key; \(noRetry)"),
        CloseRule(code: 1009, match: .any, kind: .fatalRequest, message: "a message was too large for the connection",
                  hint: "send less at once (a shorter system instruction or smaller tool results); \(noRetry)"),
        CloseRule(code: 1011, match: .any, kind: .transient, message: "the service had an internal error", hint: reconnects),
    ]

    /// Anything the table does not name: the network or the server may do better on a later try.
    static let fallback = CloseRule(code: nil, match: .any, kind: .transient,
                                    message: "the connection closed unexpectedly", hint: reconnects)

    /// The rule for a close.
    public static func rule(for reason: CloseReason) -> CloseRule {
        rules.first { $0.matches(reason) } ?? fallback
    }
}

/// The service's own close reasons (as captured in the field), for the simulator and tests.
extension CloseReason {
    /// 1011: a passing internal error.
    public static let internalError = CloseReason(code: 1011, reason: "Internal error encountered.")
    /// 1011: the connection's time limit.
    public static let deadlineExpired = CloseReason(code: 1011, reason: "Deadline expired before operation could complete.")
    /// 1008 with no reason: the connection's time limit.
    public static let timeLimit = CloseReason(code: 1008, reason: "")
    /// 1000: the connection's time ran out after `goAway`.
    public static let normal = CloseReason(code: 1000, reason: "")
    /// 1008: the session behind a resumption handle expired.
    public static let sessionExpired = CloseReason(code: 1008, reason: "BidiGenerateContent session expired")
    /// 1008: the session behind a resumption handle is unknown.
    public static let sessionNotFound = CloseReason(code: 1008, reason: "BidiGenerateContent session not found")
    /// 1008: a resumption handle the service does not know (also seen after tool responses).
    public static let entityNotFound = CloseReason(code: 1008, reason: "Requested entity was not found")
    /// 1007: a malformed or disallowed request.
    public static let invalidArgument = CloseReason(code: 1007, reason: "Request contains an invalid argument.")
    /// 1007: the API key does not match.
    public static let invalidAPIKey = CloseReason(code: 1007, reason: "API key not valid. Please pass a valid API key.")
    /// 1008: the project has not enabled the API.
    public static let apiDisabled = CloseReason(
        code: 1008, reason: "Generative Language API has not been used in project 0 before or it is disabled.")
    /// 1011: the quota is used up.
    public static let quotaExceeded = CloseReason(
        code: 1011, reason: "You exceeded your current quota, please check your plan and billing details.")
    /// 1011: an ephemeral token already used for a new session.
    public static let tokenSpent = CloseReason(code: 1011, reason: "Token has been used too many times")
    /// 1011: an ephemeral token past its `expireTime`.
    public static let tokenExpired = CloseReason(code: 1011, reason: "auth token has expired")
    /// 1011: resources (and spending limits) exhausted.
    public static let resourceExhausted = CloseReason(code: 1011, reason: "Resource has been exhausted (e.g. check quota).")

    /// 1008: the model does not exist or does not support the Live API.
    public static func modelNotFound(_ model: String) -> CloseReason {
        CloseReason(code: 1008, reason: "\(model) is not found for API version v1beta, or is not supported for bidiGenerateContent")
    }

    /// One example of each class, for tests that keep the table and the simulator in step.
    public static let serviceExamples: [(CloseReason, CloseClass)] = [
        (internalError, .transient), (deadlineExpired, .transient), (timeLimit, .transient), (normal, .transient),
        (CloseReason(code: 1011, reason: "Internal error occurred"), .transient),
        (sessionExpired, .refusedHandle(resumeOnceFirst: false)), (sessionNotFound, .refusedHandle(resumeOnceFirst: false)),
        (entityNotFound, .refusedHandle(resumeOnceFirst: true)),
        (invalidArgument, .fatalRequest), (invalidAPIKey, .fatalKey), (modelNotFound("models/x"), .fatalRequest),
        (CloseReason(code: 1007, reason: "API key expired. Please renew the API key."), .fatalKey),
        (apiDisabled, .fatalAccount), (quotaExceeded, .fatalAccount), (resourceExhausted, .fatalAccount),
        (tokenSpent, .credential), (tokenExpired, .credential),
    ]
}
