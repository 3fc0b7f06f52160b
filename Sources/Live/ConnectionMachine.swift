/// The connection logic of a Live session as a value type: it takes events (with the time they happened) and
/// returns actions for the I/O code to carry out. It owns the rules for staying connected: resumption handles
/// and their age, `goAway` hand-overs at turn boundaries, reconnecting with backoff after a transient close (for
/// as long as it takes: the handle lasts two hours, and after that a fresh session carries the conversation on),
/// a fresh session when the service refuses the handle, and never retrying a fatal close.
public struct ConnectionMachine: Sendable {
    /// Seconds on a monotonic clock.
    public typealias Time = Double

    public struct Policy: Sendable, Equatable {
        /// Delays before the first reconnect attempts after a drop; later attempts double the last one up to
        /// `backoffCap`.
        public var backoff: [Double] = [0.1, 1, 2, 4, 8]
        /// The longest wait between attempts.
        public var backoffCap: Double = 30
        /// The longest wait while the user waits for the connection (a typed turn is queued), so the turn is
        /// answered within seconds of the service coming back.
        public var userWaitingCap: Double = 3
        /// Give up after this many attempts in a row; nil keeps trying (a laptop offline for an hour comes back
        /// to its conversation).
        public var maxAttempts: Int?
        /// ± fraction of random jitter applied to each delay.
        public var jitter: Double = 0.2
        /// A connection live this long resets the attempt counter.
        public var stableAfter: Double = 10
        /// How long to wait for `setupComplete`.
        public var setupTimeout: Double = 10
        /// A resumption handle older than this is not used.
        public var handleLifetime: Double = 2 * 60 * 60
        /// The hand-over after `goAway` happens no later than this long before the connection is due to close.
        public var goAwayMargin: Double = 1.0
        /// How long a requested hand-over (voice switch) waits for the current turn to end.
        public var handoverTurnWait: Double = 20
        /// Reconnect after drops at all.
        public var reconnects = true
        /// A credential close (a spent ephemeral token, a refused access token) can be met with a new credential
        /// (a token command, application default credentials): reconnect once with a new one. When false such a
        /// close ends the session at once.
        public var renewsCredentials = false

        public init() {}
    }

    public enum State: Sendable, Equatable {
        case idle
        /// A transport is opening; `attempt` is 0 for the first connection or a planned hand-over.
        case connecting(id: Int, attempt: Int)
        case awaitingSetupComplete(id: Int, attempt: Int, since: Time)
        case live(id: Int, since: Time)
        /// Offline: the next attempt is due at `until`.
        case backingOff(attempt: Int, until: Time, after: CloseReason)
        case failed(CloseReason)
        case closed
    }

    /// Why a hand-over to a new connection is planned.
    public enum HandoverReason: Sendable, Equatable {
        case goAway(deadline: Time)
        case requested(deadline: Time, requireHandle: Bool)

        var deadline: Time {
            switch self {
            case .goAway(let d), .requested(let d, _): d
            }
        }
    }

    public enum Event: Sendable, Equatable {
        case start
        case transportOpened(id: Int)
        case setupComplete(id: Int)
        case transportClosed(id: Int, CloseReason)
        case goAway(id: Int, timeLeft: Double)
        /// A `sessionResumptionUpdate` with a usable handle (resumable, non-empty).
        case resumptionHandle(Secret)
        /// The server started a turn (model output, a tool call) or the user started one.
        case turnStarted
        /// The model's turn ended (`turnComplete`).
        case turnEnded
        /// Move to a new connection (e.g. with another voice) once it is safe to.
        case handoverRequested(requireHandle: Bool)
        /// A timer set by `nextDeadline` fired (or any wake-up: it is safe to send spuriously).
        case tick
        /// Try at once instead of waiting out the backoff: the user asked (`r`), or the network changed (a new
        /// default route, a resume from suspend). With `evenIfLive`, a live connection is replaced too (after a
        /// suspend it is most likely dead without knowing it).
        case retryNow(evenIfLive: Bool)
        /// The user is waiting for the connection (typed a turn while offline): retry at once, and keep the
        /// backoff short until the session is live.
        case userWaiting
        case stop
    }

    public enum Action: Sendable, Equatable {
        /// Open a transport with this id; resume with the handle if one is given.
        case connect(id: Int, resumeWith: Secret?)
        /// Send `setup` on the opened transport.
        case sendSetup(id: Int, resumeWith: Secret?)
        /// The connection is live: send what was held during the hand-over.
        case live(id: Int, resumed: Bool)
        case closeTransport(id: Int, code: Int, reason: ClientClose)
        /// Tell the user a reconnect is scheduled.
        case reconnecting(attempt: Int, delay: Double, after: CloseReason)
        /// The session cannot continue.
        case fail(CloseReason)
        /// The next connection starts a new session: the old one's handle was refused or is too old.
        case freshSession(FreshSessionCause)
        /// The credential was refused as spent or expired: never send it again; the next connection needs a new one.
        case renewCredential(after: CloseReason)
    }

    /// Why parley closes a connection itself; the raw value is the close frame's reason.
    public enum ClientClose: String, Sendable, Equatable {
        case setupTimedOut = "setup timed out"
        /// A planned move to a new connection (`goAway`, a new voice).
        case handover = "hand-over"
        /// The network changed (or the watchdog gave up on the connection): a new one replaces it.
        case networkChanged = "network changed"
        case clientClosed = "client closed"
    }

    /// Why the conversation moves to a new session on the service.
    public enum FreshSessionCause: Sendable, Equatable {
        /// The service refused the resumption handle with this close.
        case handleRefused(CloseReason)
        /// The handle is older than its lifetime (seconds).
        case handleExpired(age: Double)
    }

    public private(set) var state: State = .idle
    public let policy: Policy
    private var nextID = 0
    private var handle: (secret: Secret, at: Time)?
    /// True once a handle arrived while no turn was under way: resuming with it loses nothing.
    private var handleCoversLastTurn = false
    private var turnActive = false
    private var pendingHandover: HandoverReason?
    /// The ambiguous "Requested entity was not found" gets one more try with the handle.
    private var retriedRefusedHandle = false
    private var userWaiting = false
    /// A new credential was fetched after a credential close and no connection has gone live since: a second
    /// refusal ends the session instead of looping.
    private var renewedCredential = false
    private var rng: SplitMix64

    public init(policy: Policy = Policy(), seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.policy = policy
        rng = SplitMix64(seed: seed)
    }

    /// The latest usable resumption handle and when it arrived.
    public var latestHandle: (secret: Secret, at: Time)? { handle }

    /// The age of the latest handle at `now`, if there is one.
    public func handleAge(now: Time) -> Double? { handle.map { now - $0.at } }

    /// Whether a hand-over is waiting for a turn boundary or its deadline.
    public var handoverPending: Bool { pendingHandover != nil }

    /// Whether the session is offline: waiting to retry, or retrying after a failure (not a planned hand-over).
    public var isOffline: Bool {
        switch state {
        case .backingOff, .failed: true
        case .connecting(_, let a), .awaitingSetupComplete(_, let a, _): a > 0
        default: false
        }
    }

    /// The id of the connection that is live, if any.
    public var liveID: Int? { if case .live(let id, _) = state { id } else { nil } }

    /// When the driver must send `.tick` next, if anything is timed.
    public var nextDeadline: Time? {
        switch state {
        case .awaitingSetupComplete(_, _, let since): since + policy.setupTimeout
        case .backingOff(_, let until, _): until
        case .live: pendingHandover?.deadline
        default: nil
        }
    }

    public mutating func handle(_ event: Event, now: Time) -> [Action] {
        switch event {
        case .start:
            guard state == .idle || state == .closed else { return [] }
            return connect(attempt: 0, now: now)

        case .transportOpened(let id):
            guard case .connecting(id, let attempt) = state else { return [] }
            state = .awaitingSetupComplete(id: id, attempt: attempt, since: now)
            return [.sendSetup(id: id, resumeWith: usableHandle(now: now))]

        case .setupComplete(let id):
            guard case .awaitingSetupComplete(id, _, _) = state else { return [] }
            userWaiting = false
            renewedCredential = false
            state = .live(id: id, since: now)
            return [.live(id: id, resumed: usableHandle(now: now) != nil)]

        case .transportClosed(let id, let reason):
            return closed(id: id, reason: reason, now: now)

        case .goAway(let id, let timeLeft):
            guard case .live(id, _) = state else { return [] }
            let deadline = now + max(0, timeLeft - policy.goAwayMargin)
            if let p = pendingHandover, p.deadline <= deadline { return [] }
            pendingHandover = .goAway(deadline: deadline)
            return handoverIfReady(now: now)

        case .resumptionHandle(let secret):
            handle = (secret, now)
            retriedRefusedHandle = false
            handleCoversLastTurn = !turnActive
            return handoverIfReady(now: now)

        case .turnStarted:
            turnActive = true
            handleCoversLastTurn = false
            return []

        case .turnEnded:
            turnActive = false
            return handoverIfReady(now: now)

        case .handoverRequested(let requireHandle):
            switch state {
            case .live:
                pendingHandover = .requested(deadline: now + policy.handoverTurnWait, requireHandle: requireHandle)
                return handoverIfReady(now: now)
            case .backingOff(let attempt, _, let after):
                // Already reconnecting: go now; the new connection picks up the new configuration.
                state = .backingOff(attempt: attempt, until: now, after: after)
                return handle(.tick, now: now)
            default:
                return []  // a connection is opening; it will carry the new configuration
            }

        case .tick:
            return tick(now: now)

        case .userWaiting:
            guard !userWaiting else { return [] }
            userWaiting = true
            if case .backingOff(let attempt, _, _) = state { return connect(attempt: attempt, now: now) }
            return []

        case .retryNow(let evenIfLive):
            switch state {
            case .backingOff(let attempt, _, _):
                return connect(attempt: attempt, now: now)
            case .live(let id, _) where evenIfLive:
                pendingHandover = nil
                var actions: [Action] = [.closeTransport(id: id, code: 1000, reason: .networkChanged)]
                actions += connect(attempt: 0, now: now)
                return actions
            default:
                return []
            }

        case .stop:
            pendingHandover = nil
            let old = state
            state = .closed
            switch old {
            case .connecting(let id, _), .awaitingSetupComplete(let id, _, _), .live(let id, _):
                return [.closeTransport(id: id, code: 1000, reason: .clientClosed)]
            default:
                return []
            }
        }
    }

    private mutating func tick(now: Time) -> [Action] {
        switch state {
        case .awaitingSetupComplete(let id, let attempt, let since) where now >= since + policy.setupTimeout:
            let reason = CloseReason(code: 1006, reason: "no setupComplete within \(Int(policy.setupTimeout)) s")
            var actions: [Action] = [.closeTransport(id: id, code: 1000, reason: .setupTimedOut)]
            state = .connecting(id: id, attempt: attempt)  // so the close below is handled as this attempt's failure
            actions += closed(id: id, reason: reason, now: now)
            return actions
        case .backingOff(let attempt, let until, _) where now >= until:
            return connect(attempt: attempt, now: now)
        case .live:
            return handoverIfReady(now: now)
        default:
            return []
        }
    }

    private mutating func closed(id: Int, reason: CloseReason, now: Time) -> [Action] {
        let attempt: Int
        switch state {
        case .connecting(id, let a), .awaitingSetupComplete(id, let a, _):
            attempt = a
        case .live(id, let since):
            attempt = now - since >= policy.stableAfter ? 0 : attemptAfterShortLife
        default:
            return []  // a stale transport (already replaced or stopped)
        }
        switch reason.kind {
        case .credential where policy.renewsCredentials && !renewedCredential:
            renewedCredential = true
            pendingHandover = nil
            return [.renewCredential(after: reason)] + connect(attempt: 0, now: now)
        case .fatalKey, .fatalRequest, .fatalAccount, .credential:
            state = .failed(reason)
            pendingHandover = nil
            return [.fail(reason)]
        case .refusedHandle(let resumeOnceFirst):
            guard handle != nil, policy.reconnects else { break }  // no handle to lose: an ordinary retry
            pendingHandover = nil
            if resumeOnceFirst, !retriedRefusedHandle, usableHandle(now: now) != nil {
                retriedRefusedHandle = true
                return connect(attempt: 0, now: now)
            }
            handle = nil
            retriedRefusedHandle = false
            return [.freshSession(.handleRefused(reason))] + connect(attempt: 0, now: now)
        case .transient:
            break
        }
        if pendingHandover != nil || (reason.code == 1000 || reason.code == 1001) && handle != nil && policy.reconnects {
            // The server ended the connection as announced (or a hand-over was due): go straight on.
            pendingHandover = nil
            return connect(attempt: 0, now: now)
        }
        guard policy.reconnects, attempt < (policy.maxAttempts ?? .max) else {
            state = .failed(reason)
            return [.fail(reason)]
        }
        let cap = userWaiting ? min(policy.backoffCap, policy.userWaitingCap) : policy.backoffCap
        let delay = min(cap, backoffBase(attempt) * (1 + policy.jitter * (rng.nextUnit() * 2 - 1)))
        state = .backingOff(attempt: attempt + 1, until: now + delay, after: reason)
        lastAttempt = attempt + 1
        return [.reconnecting(attempt: attempt + 1, delay: delay, after: reason)]
    }

    /// Attempts used so far when a connection dies before it was stable (so a flapping link still gives up).
    private var lastAttempt = 0
    private var attemptAfterShortLife: Int { lastAttempt }

    /// The delay before attempt `attempt + 1`, before jitter: the policy's list, then doubling up to the cap.
    func backoffBase(_ attempt: Int) -> Double {
        let list = policy.backoff.isEmpty ? [1.0] : policy.backoff
        if attempt < list.count { return min(policy.backoffCap, list[attempt]) }
        let doublings = min(30, attempt - list.count + 1)
        return min(policy.backoffCap, (list.last ?? 1) * Double(1 << doublings))
    }

    private mutating func connect(attempt: Int, now: Time) -> [Action] {
        var actions: [Action] = []
        if let h = handle, now - h.at >= policy.handleLifetime {
            handle = nil
            actions.append(.freshSession(.handleExpired(age: now - h.at)))
        }
        nextID += 1
        if attempt == 0 { lastAttempt = 0 }
        state = .connecting(id: nextID, attempt: attempt)
        return actions + [.connect(id: nextID, resumeWith: usableHandle(now: now))]
    }

    private func usableHandle(now: Time) -> Secret? {
        guard let h = handle, now - h.at < policy.handleLifetime else { return nil }
        return h.secret
    }

    private mutating func handoverIfReady(now: Time) -> [Action] {
        guard let pending = pendingHandover, case .live(let id, _) = state else { return [] }
        let atBoundary = !turnActive && handleCoversLastTurn
        let due = now >= pending.deadline
        if case .requested(_, let requireHandle) = pending, !requireHandle, !turnActive, handle == nil {
            return handover(id: id, now: now)
        }
        guard atBoundary || due else { return [] }
        return handover(id: id, now: now)
    }

    private mutating func handover(id: Int, now: Time) -> [Action] {
        pendingHandover = nil
        lastAttempt = 0
        var actions: [Action] = [.closeTransport(id: id, code: 1000, reason: .handover)]
        actions += connect(attempt: 0, now: now)
        return actions
    }
}

/// A small deterministic random generator for backoff jitter.
struct SplitMix64: Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A value in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
