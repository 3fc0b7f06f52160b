import Live

/// What the session reports, in the words both the conversation's transcript and `ask` print.
package enum SessionLines {
    /// What the watchdog noticed and what parley does about it.
    package static func stall(_ finding: ReplyWatchdog.Finding, _ recovery: ReplyWatchdog.Recovery) -> String {
        "\(finding) — " + (recovery == .nudge ? "asking again" : "resuming on a new connection")
    }

    /// The one line that tells the user the conversation moved to a new session.
    package static func freshSession(_ cause: ConnectionMachine.FreshSessionCause) -> String {
        switch cause {
        case .handleRefused(let r):
            "the service could not resume the conversation (\(r.codeAndReason)); continuing in a new session seeded with the conversation so far"
        case .handleExpired(let age):
            "the conversation's resumption handle expired (\(Int(age / 60)) min old); continuing in a new session seeded with the conversation so far"
        }
    }
}
