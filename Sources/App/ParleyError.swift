import Live

/// Errors the command line reports: a message that says what happened and a hint that says what to do.
enum ParleyError: Error, CustomStringConvertible {
    case noAPIKey
    case config(file: String, line: Int?, key: String, problem: String)
    case file(path: String, problem: String)
    case closed(CloseReason)
    case usage(String)
    /// A transient failure or an outage outlasted the time allowed (EX_TEMPFAIL: trying later may work).
    case gaveUp(String)
    /// No credential could be had (credentials files, the metadata server, gcloud, a token command).
    case credential(CredentialFailure)
    /// The conversation spent its budget (`--budget`); what was answered is complete.
    case budgetReached(String)

    var description: String {
        switch self {
        case .noAPIKey:
            return """
                no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from https://aistudio.google.com/apikey,
                or try parley without one: parley --demo
                """
        case .config(let file, let line, let key, let problem):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(key): \(problem)"
        case .file(let path, let problem):
            return "\(path): \(problem)"
        case .closed(let reason):
            return "the Live service \(reason)"
        case .usage(let text), .gaveUp(let text), .budgetReached(let text):
            return text
        case .credential(let failure):
            return "\(failure.message)\n  \(failure.hint)"
        }
    }

    /// The exit status: 64 for usage errors (EX_USAGE), 78 for configuration (EX_CONFIG), 69 when the service
    /// refused us for good (EX_UNAVAILABLE: key, request or account), 75 when a transient failure or an outage
    /// outlasted the time allowed (EX_TEMPFAIL), 3 when the budget was reached, 1 otherwise.
    var exitCode: Int32 {
        switch self {
        case .usage: 64
        case .config, .credential: 78
        case .closed(let reason): reason.isFatal ? 69 : 75
        case .gaveUp: 75
        case .budgetReached: 3
        case .noAPIKey, .file: 1
        }
    }
}
