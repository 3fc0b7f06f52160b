import Foundation
import Logging
import NIOCore
import ParleyTime
import ParleyLock

/// Everything a session needs to know to connect.
public struct LiveConfiguration: Sendable {
    /// The WebSocket URL; nil for the service's default for the credential.
    public var endpoint: String?
    public var credential: Credential
    /// The `setup` message (without a resumption handle: the session adds that).
    public var setup: Setup
    public var policy: ConnectionMachine.Policy
    /// Mic audio held during a planned hand-over, in bytes (default 30 s); oldest dropped beyond it. Also the
    /// longest push-to-talk turn kept for sending again after a close.
    public var heldAudioLimit: Int
    /// Mic audio held while offline (default 2 s): a short drop loses nothing, a long outage does not replay
    /// stale speech; beyond it the held audio is dropped and none is held until the connection is back.
    public var offlineAudioLimit: Int
    /// Typed turns queued while offline, at most.
    public var queuedTextLimit: Int
    /// Retry at once when the network changes (new default route, resume from suspend).
    public var watchNetwork: Bool
    /// Notice replies that never come or are silent, and recover; nil turns the watchdog off.
    public var watchdog: ReplyWatchdog.Policy?
    /// Asked for the credential before each connection (access tokens, ephemeral tokens from a token command);
    /// nil sends `credential` every time.
    public var authorizer: (any ConnectionAuthorizer)?

    public init(
        endpoint: String? = nil, credential: Credential, authorizer: (any ConnectionAuthorizer)? = nil, setup: Setup,
        policy: ConnectionMachine.Policy = .init(), heldAudioLimit: Int = 30 * 32_000,
        offlineAudioLimit: Int = 2 * 32_000, queuedTextLimit: Int = 50, watchNetwork: Bool = true,
        watchdog: ReplyWatchdog.Policy? = .init()
    ) {
        self.watchdog = watchdog
        self.authorizer = authorizer
        self.endpoint = endpoint
        self.credential = credential
        self.setup = setup
        self.policy = policy
        self.heldAudioLimit = heldAudioLimit
        self.offlineAudioLimit = offlineAudioLimit
        self.queuedTextLimit = queuedTextLimit
        self.watchNetwork = watchNetwork
    }

    /// The URL to dial.
    public var url: String { endpoint ?? credential.defaultEndpoint }

    /// The input limits, as the session machine takes them.
    public var limits: SessionMachine.Limits {
        SessionMachine.Limits(heldAudio: heldAudioLimit, offlineAudio: offlineAudioLimit, queuedText: queuedTextLimit)
    }
}

/// A conversation with the Live service across as many connections as it takes: sends `setup` first, holds
/// input until `setupComplete`, reports typed events, and keeps the conversation going through `goAway`
/// hand-overs, dropped connections and outages. A user turn that had no answer when its connection closed is
/// sent again on the next one; typed turns wait in a queue while offline; a fresh session (refused or expired
/// handle) is seeded with the conversation so far. Every method is thread-safe and never blocks, so the capture
/// thread can hand mic audio straight to `sendAudio`.
///
/// The rules live in `SessionMachine`; this class is its I/O: it feeds the machine under a lock and carries out
/// what it returns (writes, opens and closes under the lock, so the wire keeps the machine's order; events,
/// logs and playback after it, since playback takes the audio thread's lock).
public final class LiveSession: Sendable {
    /// Events for the main loop.
    public let events: AsyncStream<LiveEvent>
    private let continuation: AsyncStream<LiveEvent>.Continuation
    private let configuration: LiveConfiguration
    private let transport: any LiveTransport
    private let playback: (@Sendable (PlaybackCommand) -> Void)?
    private let logger: Logger
    private let codec = LiveCodec()
    /// The session's clock: backoff, hand-over deadlines, handle ages and the watchdog are read from it.
    private let time: TimeSource
    private let core: Locked<Core>

    struct Core: ~Copyable {
        var machine: SessionMachine
        var connections: [Int: any LiveConnection] = [:]
        var timer: Scheduled<Void>?
        /// Bumped at each arming, so a timer that fires after it was replaced does nothing.
        var timerGeneration = 0
    }

    /// - Parameter playback: receives reply audio and flushes directly on the receive path; when nil, audio
    ///   arrives as `.audio` events instead.
    public init(
        configuration: LiveConfiguration, transport: any LiveTransport = WebSocketTransport(),
        logger: Logger = Logger(label: "parley.live"), playback: (@Sendable (PlaybackCommand) -> Void)? = nil,
        time: TimeSource = .monotonic
    ) {
        self.configuration = configuration
        self.time = time
        (events, continuation) = AsyncStream<LiveEvent>.makeStream(bufferingPolicy: .unbounded)
        self.transport = transport
        self.playback = playback
        self.logger = logger
        var policy = configuration.policy
        if configuration.authorizer?.canRenew == true { policy.renewsCredentials = true }
        core = Locked(Core(machine: SessionMachine(
            setup: configuration.setup, policy: policy, limits: configuration.limits,
            watchdog: configuration.watchdog)))
    }

    // MARK: - Commands

    /// Opens the first connection.
    public func start() {
        run(.start)
        if configuration.watchNetwork { watchNetwork() }
    }

    /// Closes the session for good.
    public func close() { run(.close) }

    /// Retry at once instead of waiting out the backoff (the user pressed `r`).
    public func retryNow() { run(.retryNow) }

    /// Mic audio: 16 kHz mono s16le, ideally 20 ms chunks.
    public func sendAudio(_ pcm: Data) { run(.audio(pcm)) }

    /// A JPEG image or camera/screen frame (`realtimeInput.video`). Returns false, and drops the frame, while
    /// no connection is live: stale frames held for a reconnect would then go out faster than 1 a second.
    @discardableResult
    public func sendVideo(_ jpeg: Data) -> Bool {
        run(.video(jpeg)) { $0.isLive }
    }

    /// A typed user turn (`clientContent`), which also interrupts a reply in progress; models that refuse
    /// `clientContent` mid-session get it as `realtimeInput.text`. While offline it waits in
    /// a queue (reported with `.textQueued`) and is sent once the connection is back, one turn per answer.
    /// Returns the turn's id, which the queue events name.
    @discardableResult
    public func sendText(_ text: String) -> Int {
        run(.text(text)) { $0.lastTextID }
    }

    /// Adds turns to the context without asking for a reply (`turnComplete: false`).
    public func seedContext(_ turns: [Content]) { run(.seedContext(turns)) }

    /// The conversation so far from an earlier run (`--resume`), used to seed a fresh session if the service
    /// refuses the saved handle. Call before `start`.
    public func preloadContext(_ turns: [Content]) { run(.preload(turns)) }

    /// Push-to-talk pressed (manual activity detection only).
    public func activityStart() { run(.activityStart) }

    /// Push-to-talk released: call after the last mic chunk has been handed over.
    public func activityEnd() { run(.activityEnd) }

    /// The mic was paused (automatic activity detection only).
    public func audioStreamEnd() { run(.audioStreamEnd) }

    /// Answers function calls by id.
    public func sendToolResponse(_ responses: [FunctionResponse]) { run(.toolResponse(responses)) }

    /// Changes the configuration of the next connection and moves to it once it is safe: at the end of the
    /// current turn with a fresh resumption handle, so the conversation continues. With `requireHandle` false
    /// and no handle at all, it moves at once to a new session.
    public func reconfigure(requireHandle: Bool = true, _ change: @Sendable (inout Setup) -> Void) {
        let now = time.now()
        let later = core.withLock { core -> [SessionMachine.Action] in
            var setup = core.machine.setup
            change(&setup)
            return perform(core.machine.handle(.reconfigure(setup, requireHandle: requireHandle), now: now), core: &core)
        }
        deliver(later)
    }

    /// Changes the system instruction, the tools and/or the voice of the conversation without losing it: a
    /// `contextUpdate` where the model takes one and the voice stays, else a resume on a new connection with
    /// the changed setup (see `reconfigure`); reported as `.contextChanged` or `.contextRefused`.
    /// `duringReply`: the model is answering (a resume then waits for a handle that covers the reply).
    public func changeContext(_ change: ContextChange, duringReply: Bool = false) {
        run(.changeContext(change, duringReply: duringReply))
    }

    /// Whether a resumption handle under its lifetime is held.
    public var hasResumptionHandle: Bool {
        let now = time.now()
        return core.withLock { $0.machine.hasResumptionHandle(now: now) }
    }

    /// The latest handle and its age in seconds, for persisting across runs. Treat it as a secret.
    public var resumptionHandle: (handle: Secret, age: Double)? {
        let now = time.now()
        return core.withLock { $0.machine.resumptionHandle(now: now) }
    }

    /// Starts from a handle saved by an earlier run (call before `start`).
    public func restoreHandle(_ handle: Secret, age: Double) { run(.restoreHandle(handle, age: age)) }

    /// The connection state, for display.
    public var state: ConnectionMachine.State { core.withLock { $0.machine.connection.state } }

    /// Whether the session is offline (waiting to retry or retrying after a failure).
    public var isOffline: Bool { core.withLock { $0.machine.connection.isOffline } }

    /// The current setup (e.g. its voice).
    public var setup: Setup { core.withLock { $0.machine.setup } }

    // MARK: - Carrying out the machine's actions

    private func run(_ input: SessionMachine.Input) { run(input) { _ in () } }

    /// Feeds one input and returns what `read` reads from the machine after it, under the same lock.
    @discardableResult
    private func run<T>(_ input: SessionMachine.Input, read: (borrowing SessionMachine) -> T) -> T {
        let now = time.now()
        let (value, later) = core.withLock { core -> (T, [SessionMachine.Action]) in
            let later = perform(core.machine.handle(input, now: now), core: &core)
            return (read(core.machine), later)
        }
        deliver(later)
        return value
    }

    /// Carries out the wire's actions (under the lock) and returns the rest, for `deliver` after it.
    private func perform(_ actions: [SessionMachine.Action], core: inout Core) -> [SessionMachine.Action] {
        var later: [SessionMachine.Action] = []
        for action in actions {
            switch action {
            case .open(let id, let newSession):
                open(id, newSession: newSession, core: &core)
            case .renewCredential:
                // Before the next connection asks for one: the refused credential is never sent again.
                configuration.authorizer?.discard()
            case .send(let message, let id):
                guard let connection = core.connections[id] else { break }
                do {
                    connection.send(try codec.encode(message))
                } catch {
                    later.append(.log(.error, "cannot encode \(message.kind): \(error)"))
                }
            case .close(let id, let code, let reason):
                core.connections.removeValue(forKey: id)?.close(code: code, reason: reason.rawValue)
            case .setTimer(let deadline):
                arm(deadline, core: &core)
            case .cancelTimer:
                arm(nil, core: &core)
            case .emit, .playback, .log:
                later.append(action)
            }
        }
        return later
    }

    /// The one place a connection is opened: the URL and headers are read here, per connection. A credential
    /// that may need a token endpoint or a command is fetched off the lock; the connection opens only if the
    /// machine still waits for it, and a failure to get one is a close the machine classifies.
    private func open(_ id: Int, newSession: Bool, core: inout Core) {
        guard let authorizer = configuration.authorizer else {
            core.connections[id] = connect(id, credential: configuration.credential)
            return
        }
        Task { [weak self] in
            do {
                let credential = try await authorizer.credential(newSession: newSession)
                self?.core.withLock { core in
                    guard let self, core.machine.awaitsTransport(id) else { return }
                    core.connections[id] = self.connect(id, credential: credential)
                }
            } catch {
                let failure = error as? CredentialFailure ?? CredentialFailure("\(error)", hint: "")
                self?.logger.warning("no credential for the next connection: \(failure)")
                self?.run(.closed(connection: id, .dropped("no credential: \(failure)")))
            }
        }
    }

    private func connect(_ id: Int, credential: Credential) -> any LiveConnection {
        transport.open(url: configuration.endpoint ?? credential.defaultEndpoint, headers: credential.headers) {
            [weak self] event in self?.transportEvent(event, id: id)
        }
    }

    private func deliver(_ actions: [SessionMachine.Action]) {
        for action in actions {
            switch action {
            case .emit(let event):
                continuation.yield(event)
                if event == .closed { continuation.finish() }
            case .playback(let command):
                if let playback {
                    playback(command)
                } else if case .play(let pcm) = command {
                    continuation.yield(.audio(pcm))
                }
            case .log(let level, let message):
                logger.log(level: level, "\(message)")
            case .open, .send, .close, .setTimer, .cancelTimer, .renewCredential:
                break  // carried out under the lock
            }
        }
    }

    /// One timer on the network thread's timer wheel, not a task per arming.
    private func arm(_ deadline: Double?, core: inout Core) {
        core.timerGeneration += 1
        core.timer?.cancel()
        core.timer = nil
        guard let deadline else { return }
        let generation = core.timerGeneration
        core.timer = NetworkExecutor.shared.schedule(after: max(0, deadline - time.now()) + 0.001) { [weak self] in
            guard let self, self.core.withLock({ $0.timerGeneration == generation }) else { return }
            self.run(.timerFired)
        }
    }

    /// Every 2 s: a resume from suspend or a new default route makes an offline session retry at once (and
    /// replaces a live connection after a suspend, since it most likely died meanwhile).
    private func watchNetwork() {
        let watch = Locked(NetworkWatch())
        let time = self.time
        NetworkExecutor.shared.repeatEvery(2) { [weak self] in
            guard let self, !self.core.withLock({ $0.machine.isClosed }) else { return false }
            let change = watch.withLock {
                $0.observe(now: time.now(), throughSuspend: time.nowThroughSuspend(), route: NetworkWatch.readDefaultRoute())
            }
            if let change { self.run(.networkChanged(change)) }
            return true
        }
    }

    private func transportEvent(_ event: TransportEvent, id: Int) {
        switch event {
        case .opened:
            run(.opened(connection: id))
        case .closed(let reason):
            run(.closed(connection: id, reason))
        case .frame(let bytes):
            // Decoded here, outside the lock; reply audio reaches playback from this thread.
            do {
                run(.message(try codec.decodeServer(bytes), connection: id))
            } catch {
                run(.malformedFrame("\(error)", connection: id))
            }
        }
    }
}
