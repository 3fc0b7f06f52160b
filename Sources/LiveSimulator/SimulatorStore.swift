import Live
import ParleyTime
import ParleyLock

/// What a session needs from the simulator around it: session ids, resumption handles, fault slots and stats.
protocol SessionDirectory: Sendable {
    func newConversation(model: String) -> Conversation
    func resolve(handle: String) -> ResumeLookup
    func issueHandle(for conversation: Conversation) -> String
    /// Whether this connection gets the configured faults (asked once, after a successful setup).
    func claimFaults(resumed: Bool) -> Bool
    /// Uses up an ephemeral token for a new session; false when it was used before.
    func spendToken(_ token: String) -> Bool
    func record(_ update: (inout SimulatorStats) -> Void)
    func recordSession(_ id: Int, _ update: (inout SessionStats) -> Void)
}

/// What a resumption handle led to.
enum ResumeLookup: Sendable, Equatable {
    case found(Conversation)
    /// Not a handle this simulator could have issued.
    case malformed
    /// Well-formed, but unknown or older than 2 hours.
    case notFound
}

/// The simulator's shared state: stats, sessions and handles, behind one lock.
final class SimulatorStore: SessionDirectory {
    /// Handles live 2 hours, as the real service's do.
    static let handleLifetime = 2.0 * 60 * 60
    static let handlePrefix = "simh-"

    private struct State {
        var stats = SimulatorStats()
        var handles: [String: (conversation: Conversation, issued: Double)] = [:]
        var nextSession = 1
        var nextHandle = 1
        var faultsClaimed = 0
        var turnClosesFired = 0
        var silentRepliesSent = 0
        var spentTokens: Set<String> = []
    }

    private let state = Locked(State())
    private let scope: SimulatorOptions.FaultScope

    /// Handle ages are read from this clock (a test's virtual clock can age them past their lifetime).
    private let time: TimeSource

    init(scope: SimulatorOptions.FaultScope, time: TimeSource = .monotonic) {
        self.scope = scope
        self.time = time
    }

    var stats: SimulatorStats { state.withLock { $0.stats } }

    /// Counts an accepted WebSocket connection and returns its number (1, 2, …).
    func acceptConnection() -> Int {
        state.withLock { s in
            s.stats.connectionsAccepted += 1
            s.stats.openConnections += 1
            return s.stats.connectionsAccepted
        }
    }

    func newConversation(model: String) -> Conversation {
        state.withLock { s in
            let id = s.nextSession
            s.nextSession += 1
            s.stats.sessions.append(SessionStats(id: id, connections: 0, audioBytesReceived: 0, turnsAnswered: 0))
            return Conversation(sessionID: id, model: model)
        }
    }

    func spendToken(_ token: String) -> Bool {
        state.withLock { s in
            guard s.spentTokens.insert(token).inserted else { return false }
            s.stats.ephemeralTokensSpent += 1
            return true
        }
    }

    func resolve(handle: String) -> ResumeLookup {
        guard handle.hasPrefix(Self.handlePrefix) else { return .malformed }
        return state.withLock { s in
            guard let entry = s.handles[handle], time.now() - entry.issued < Self.handleLifetime else {
                return .notFound
            }
            return .found(entry.conversation)
        }
    }

    func issueHandle(for conversation: Conversation) -> String {
        state.withLock { s in
            // Unguessable enough for a simulator, and never reused.
            let handle = "\(Self.handlePrefix)\(conversation.sessionID)-\(s.nextHandle)-\(UInt64.random(in: 1..<UInt64.max))"
            s.nextHandle += 1
            let now = time.now()
            s.handles = s.handles.filter { now - $0.value.issued < Self.handleLifetime }
            s.handles[handle] = (conversation, now)
            return handle
        }
    }

    func claimFaults(resumed: Bool) -> Bool {
        state.withLock { s in
            switch scope {
            case .everyConnection: return true
            case .newSessions: return !resumed
            case .firstConnection:
                s.faultsClaimed += 1
                return s.faultsClaimed == 1
            }
        }
    }

    /// Whether a user turn arriving now gets the close-on-turn fault (after `afterAnswered` answered turns, at
    /// most `times` in all).
    func claimTurnClose(afterAnswered: Int, times: Int) -> Bool {
        state.withLock { s in
            guard s.turnClosesFired < times, s.stats.turnsAnswered >= afterAnswered else { return false }
            s.turnClosesFired += 1
            return true
        }
    }

    /// Whether the user turn arriving now gets a silent reply (the first `count` turns that ask).
    func claimSilentReply(count: Int) -> Bool {
        state.withLock { s in
            guard s.silentRepliesSent < count else { return false }
            s.silentRepliesSent += 1
            s.stats.silentReplies += 1
            return true
        }
    }

    /// User turns heard so far.
    var userTurnCount: Int { state.withLock { $0.stats.userTurns.count } }

    func record(_ update: (inout SimulatorStats) -> Void) { state.withLock { update(&$0.stats) } }

    func recordSession(_ id: Int, _ update: (inout SessionStats) -> Void) {
        state.withLock { s in
            if let i = s.stats.sessions.firstIndex(where: { $0.id == id }) { update(&s.stats.sessions[i]) }
        }
    }
}
