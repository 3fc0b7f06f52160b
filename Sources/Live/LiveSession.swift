import Foundation
import Logging
import NIOCore
import ParleyTime
import Synchronization

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
}

/// A conversation with the Live service across as many connections as it takes: sends `setup` first, holds
/// input until `setupComplete`, reports typed events, and keeps the conversation going through `goAway`
/// hand-overs, dropped connections and outages. A user turn that had no answer when its connection closed is
/// sent again on the next one; typed turns wait in a queue while offline; a fresh session (refused or expired
/// handle) is seeded with the conversation so far. Every method is thread-safe and never blocks, so the capture
/// thread can hand mic audio straight to `sendAudio`.
public final class LiveSession: Sendable {
    /// Events for the main loop.
    public let events: AsyncStream<LiveEvent>
    private let continuation: AsyncStream<LiveEvent>.Continuation
    private let transport: any LiveTransport
    private let playback: (@Sendable (PlaybackCommand) -> Void)?
    private let logger: Logger
    private let codec = LiveCodec()
    /// The session's clock: backoff, hand-over deadlines and handle ages are read from it.
    private let time: TimeSource
    private let core: Mutex<Core>

    /// Messages waiting for a live connection.
    struct Held {
        var message: ClientMessage
        var isAudio: Bool {
            if case .realtimeInput(let input) = message {
                switch input {
                case .audio, .activityStart, .activityEnd, .audioStreamEnd: return true
                case .video, .text: return false
                }
            }
            return false
        }
    }

    /// The last user turn written to the wire, until the model answers it.
    struct PendingTurn {
        var messages: [ClientMessage]
        /// The typed text, for the conversation log once answered.
        var text: String?
        var connection: Int
        var resent = false
    }

    struct Core: ~Copyable {
        var configuration: LiveConfiguration
        var machine: ConnectionMachine
        var connections: [Int: any LiveConnection] = [:]
        /// Input waiting for a live connection (everything but typed turns).
        var held: [Held] = []
        var heldAudioBytes = 0
        /// Typed turns waiting: while offline, and behind one another once back (one answer each).
        var textQueue: [(id: Int, text: String)] = []
        var nextTextID = 0
        /// Activity was open on the wire when the last connection went away: reopen it on the next.
        var carryActivity = false
        var wireActivityOpen = false
        /// The push-to-talk activity being sent, kept to send again if its connection closes unanswered.
        var activity: (messages: [ClientMessage], bytes: Int)?
        var pending: PendingTurn?
        var watchdog: ReplyWatchdog?
        var log = ConversationLog()
        /// While offline, mic input beyond the short window is dropped (and reported once).
        var offlineDropping = false
        var timerGeneration = 0
        var timer: Scheduled<Void>?
        var sentMessages = 0
        var closing = false
        /// When the last planned hand-over closed the old connection, to time the gap.
        var handoverStartedAt: Double?
        /// This turn's end was already reported (from `generationComplete` or `waitingForInput`).
        var turnEndReported = false
    }

    /// - Parameter playback: receives reply audio and flushes directly on the receive path; when nil, audio
    ///   arrives as `.audio` events instead.
    public init(
        configuration: LiveConfiguration, transport: any LiveTransport = WebSocketTransport(),
        logger: Logger = Logger(label: "parley.live"), playback: (@Sendable (PlaybackCommand) -> Void)? = nil,
        time: TimeSource = .monotonic
    ) {
        self.time = time
        (events, continuation) = AsyncStream<LiveEvent>.makeStream(bufferingPolicy: .unbounded)
        self.transport = transport
        self.playback = playback
        self.logger = logger
        var policy = configuration.policy
        if configuration.authorizer?.canRenew == true { policy.renewsCredentials = true }
        var initial = Core(configuration: configuration, machine: ConnectionMachine(policy: policy))
        initial.watchdog = configuration.watchdog.map { ReplyWatchdog(policy: $0) }
        core = Mutex(initial)
    }

    // MARK: - Commands

    /// Opens the first connection.
    public func start() {
        step(.start)
        if core.withLock({ $0.configuration.watchNetwork }) { watchNetwork() }
    }

    /// Closes the session for good.
    public func close() {
        let done = core.withLock { core -> Bool in
            core.closing = true
            return core.machine.state == .closed
        }
        if done { return }
        step(.stop)
        continuation.yield(.closed)
        continuation.finish()
    }

    /// Retry at once instead of waiting out the backoff (the user pressed `r`).
    public func retryNow() { step(.retryNow(evenIfLive: false)) }

    /// Mic audio: 16 kHz mono s16le, ideally 20 ms chunks.
    public func sendAudio(_ pcm: Data) { send(.realtimeInput(.micAudio(pcm))) }

    /// A JPEG image or camera/screen frame (`realtimeInput.video`). Returns false, and drops the frame, while
    /// no connection is live: stale frames held for a reconnect would then go out faster than 1 a second.
    @discardableResult
    public func sendVideo(_ jpeg: Data) -> Bool {
        guard core.withLock({ $0.machine.liveID != nil }) else { return false }
        send(.realtimeInput(.video(Blob(mimeType: JPEGHeader.mimeType, data: jpeg))))
        return true
    }

    /// A typed user turn (`clientContent`), which also interrupts a reply in progress; models that refuse
    /// `clientContent` mid-session get it as `realtimeInput.text`. While offline it waits in
    /// a queue (reported with `.textQueued`) and is sent once the connection is back, one turn per answer.
    /// Returns the turn's id, which the queue events name.
    @discardableResult
    public func sendText(_ text: String) -> Int {
        var report: LiveEvent?
        let id = core.withLock { core -> Int in
            core.nextTextID += 1
            let id = core.nextTextID
            if core.closing { return id }
            if core.textQueue.isEmpty, let live = core.machine.liveID, let c = core.connections[live] {
                write(typedTurn(text, core: &core), to: c, id: live, core: &core)
            } else if core.textQueue.count >= core.configuration.queuedTextLimit {
                report = .textNotQueued(id: id, limit: core.configuration.queuedTextLimit)
            } else {
                core.textQueue.append((id, text))
                report = .textQueued(id: id, text: text, waiting: core.textQueue.count)
            }
            return id
        }
        if let report { continuation.yield(report) }
        switch report {
        case .textQueued?: step(.userWaiting)
        case .textNotQueued?: break
        default: step(.turnStarted)
        }
        return id
    }

    /// Adds turns to the context without asking for a reply (`turnComplete: false`).
    public func seedContext(_ turns: [Content]) {
        guard !turns.isEmpty else { return }
        send(.clientContent(ClientContent(turns: turns, turnComplete: false)))
    }

    /// The conversation so far from an earlier run (`--resume`), used to seed a fresh session if the service
    /// refuses the saved handle. Call before `start`.
    public func preloadContext(_ turns: [Content]) {
        core.withLock { core in
            for t in turns { core.log.appendTurn(role: t.role ?? "user", t.text) }
        }
    }

    /// Push-to-talk pressed (manual activity detection only).
    public func activityStart() { send(.realtimeInput(.activityStart), startsTurn: true) }

    /// Push-to-talk released: call after the last mic chunk has been handed over.
    public func activityEnd() { send(.realtimeInput(.activityEnd)) }

    /// The mic was paused (automatic activity detection only).
    public func audioStreamEnd() { send(.realtimeInput(.audioStreamEnd)) }

    /// Answers function calls by id.
    public func sendToolResponse(_ responses: [FunctionResponse]) {
        guard !responses.isEmpty else { return }
        send(.toolResponse(ToolResponse(functionResponses: responses)))
    }

    /// Changes the configuration of the next connection and moves to it once it is safe: at the end of the
    /// current turn with a fresh resumption handle, so the conversation continues. With `requireHandle` false
    /// and no handle at all, it moves at once to a new session.
    public func reconfigure(requireHandle: Bool = true, _ change: @Sendable (inout Setup) -> Void) {
        core.withLock { change(&$0.configuration.setup) }
        step(.handoverRequested(requireHandle: requireHandle))
    }

    /// Whether a resumption handle under its lifetime is held.
    public var hasResumptionHandle: Bool {
        let now = self.now
        return core.withLock { core in
            core.machine.handleAge(now: now).map { $0 < core.configuration.policy.handleLifetime } ?? false
        }
    }

    /// The latest handle and its age in seconds, for persisting across runs. Treat it as a secret.
    public var resumptionHandle: (handle: Secret, age: Double)? {
        let now = self.now
        return core.withLock { core in
            core.machine.latestHandle.map { ($0.secret, now - $0.at) }
        }
    }

    /// Starts from a handle saved by an earlier run (call before `start`).
    public func restoreHandle(_ handle: Secret, age: Double) {
        let at = now - age
        core.withLock { _ = $0.machine.handle(.resumptionHandle(handle), now: at) }
    }

    /// The connection state, for display.
    public var state: ConnectionMachine.State { core.withLock { $0.machine.state } }

    /// Whether the session is offline (waiting to retry or retrying after a failure).
    public var isOffline: Bool { core.withLock { $0.machine.isOffline } }

    /// The current setup (e.g. its voice).
    public var setup: Setup { core.withLock { $0.configuration.setup } }

    // MARK: - Sending

    private func send(_ message: ClientMessage, startsTurn: Bool = false) {
        var dropped = 0
        core.withLock { core in
            if core.closing { return }
            if let id = core.machine.liveID, let connection = core.connections[id] {
                write(message, to: connection, id: id, core: &core)
            } else {
                dropped = hold(message, core: &core)
            }
        }
        if dropped > 0 { continuation.yield(.heldAudioDropped(bytes: dropped)) }
        if startsTurn {
            step(.turnStarted)
        } else if case .toolResponse = message {
            core.withLock { armTimer(core: &$0) }  // the watchdog now waits for a reply
        } else if message == .realtimeInput(.activityEnd) {
            core.withLock { armTimer(core: &$0) }
        }
    }

    /// Holds a message for the next live connection; returns the bytes of mic audio to report as dropped.
    private func hold(_ message: ClientMessage, core: inout Core) -> Int {
        let entry = Held(message: message)
        var dropped = 0
        guard entry.isAudio else {
            core.held.append(entry)
            return 0
        }
        let offline = core.machine.isOffline
        if offline, core.offlineDropping { return 0 }  // already reported for this outage
        core.held.append(entry)
        if case .realtimeInput(.audio(let blob)) = message { core.heldAudioBytes += blob.data.count }
        if offline, core.heldAudioBytes > core.configuration.offlineAudioLimit {
            // A long outage: speech from before it would be stale by the time it is sent.
            dropped = core.heldAudioBytes
            core.held.removeAll { $0.isAudio }
            core.heldAudioBytes = 0
            core.offlineDropping = true
            core.carryActivity = false
            core.activity = nil
            return dropped
        }
        while core.heldAudioBytes > core.configuration.heldAudioLimit,
            let i = core.held.firstIndex(where: { if case .realtimeInput(.audio) = $0.message { true } else { false } })
        {
            if case .realtimeInput(.audio(let old)) = core.held.remove(at: i).message {
                core.heldAudioBytes -= old.data.count
                dropped += old.data.count
            }
        }
        return dropped
    }

    private func write(_ message: ClientMessage, to connection: any LiveConnection, id: Int, core: inout Core) {
        do {
            connection.send(try codec.encode(message))
            core.sentMessages += 1
        } catch {
            logger.error("cannot encode \(message.kind): \(error)")
            return
        }
        switch message {
        case .clientContent(let c) where c.turnComplete == true:
            core.pending = PendingTurn(messages: [message], text: c.turns?.map(\.text).joined(separator: " "), connection: id)
            core.watchdog?.expectReply(now: now)
        case .realtimeInput(.text(let text)):
            core.pending = PendingTurn(messages: [message], text: text, connection: id)
            core.watchdog?.expectReply(now: now)
        case .toolResponse:
            core.watchdog?.expectReply(now: now)
        case .realtimeInput(.activityStart):
            core.wireActivityOpen = true
            core.activity = ([message], 0)
        case .realtimeInput(.audio(let blob)):
            guard var a = core.activity else { break }
            a.messages.append(message)
            a.bytes += blob.data.count
            core.activity = a.bytes <= core.configuration.heldAudioLimit ? a : nil
        case .realtimeInput(.activityEnd):
            core.wireActivityOpen = false
            if let a = core.activity { core.pending = PendingTurn(messages: a.messages + [message], text: nil, connection: id) }
            core.activity = nil
            core.watchdog?.expectReply(now: now)
        default:
            break
        }
    }

    /// The model answered (its first output for the turn): the pending turn needs no resend.
    private func answered(core: inout Core) {
        core.watchdog?.replied()
        guard let p = core.pending else { return }
        core.pending = nil
        if let text = p.text { core.log.appendTurn(role: "user", text) }
    }

    /// A typed turn as the model takes it: `clientContent`, or `realtimeInput.text` where that is refused.
    private func typedTurn(_ text: String, core: inout Core) -> ClientMessage {
        LiveModel.traits(of: core.configuration.setup.model).midSessionClientContent
            ? .clientContent(.userText(text)) : .realtimeInput(.text(text))
    }

    /// Sends the next queued typed turn when nothing else waits for an answer.
    private func sendNextQueued(core: inout Core, events: inout [LiveEvent]) {
        guard core.pending == nil, !core.textQueue.isEmpty, let id = core.machine.liveID, let c = core.connections[id] else { return }
        let next = core.textQueue.removeFirst()
        write(typedTurn(next.text, core: &core), to: c, id: id, core: &core)
        events.append(.queuedTextSent(ids: [next.id]))
    }

    // MARK: - The machine

    private var now: Double { time.now() }

    private func step(_ event: ConnectionMachine.Event) {
        let now = self.now
        var out: [LiveEvent] = []
        core.withLock { core in
            let actions = core.machine.handle(event, now: now)
            perform(actions, core: &core, events: &out)
            if core.machine.liveID != nil, let (finding, recovery) = core.watchdog?.tick(now: now) {
                recover(finding, recovery, core: &core, events: &out)
            }
            armTimer(core: &core)
        }
        for e in out { continuation.yield(e) }
    }

    /// The watchdog noticed a silent failure. A nudge sends the unanswered turn again on the same connection
    /// (a stuck model answers a repeated question; an empty `realtimeInput.text` is not known to help and may
    /// be refused); with nothing to send again (silence after a tool response), or when the nudge did not help,
    /// the session moves to a new connection with its handle, where the turn is sent again.
    private func recover(_ finding: ReplyWatchdog.Finding, _ recovery: ReplyWatchdog.Recovery, core: inout Core, events: inout [LiveEvent]) {
        var recovery = recovery
        if recovery == .nudge, let p = core.pending, let id = core.machine.liveID, let c = core.connections[id] {
            logger.warning("reply watchdog: \(finding); sending the turn again")
            events.append(.replyStalled(finding, recovery: .nudge))
            for m in p.messages { write(m, to: c, id: id, core: &core) }
            return
        }
        recovery = .resume
        logger.warning("reply watchdog: \(finding); resuming on a new connection")
        events.append(.replyStalled(finding, recovery: .resume))
        core.watchdog?.reset()
        core.pending?.resent = false
        perform(core.machine.handle(.retryNow(evenIfLive: true), now: now), core: &core, events: &events)
    }

    private func perform(_ actions: [ConnectionMachine.Action], core: inout Core, events: inout [LiveEvent]) {
        for action in actions {
            switch action {
            case .connect(let id, let handle):
                events.append(.connecting(attempt: attemptNumber(core.machine.state), resuming: handle != nil))
                let configuration = core.configuration
                if let authorizer = configuration.authorizer {
                    // The credential may need a token endpoint or a command: fetched off the lock, then opened
                    // if this connection is still the one wanted.
                    Task { [weak self] in
                        do {
                            let credential = try await authorizer.credential(newSession: handle == nil)
                            self?.open(id: id, credential: credential)
                        } catch {
                            let failure = error as? CredentialFailure ?? CredentialFailure("\(error)", hint: "")
                            self?.logger.warning("no credential for the next connection: \(failure)")
                            self?.step(.transportClosed(id: id, .dropped("no credential: \(failure.message)")))
                        }
                    }
                    break
                }
                core.connections[id] = transport.open(
                    url: configuration.url, headers: configuration.credential.headers
                ) { [weak self] event in
                    self?.transportEvent(event, id: id)
                }
            case .sendSetup(let id, let handle):
                var setup = core.configuration.setup
                var resumption = setup.sessionResumption ?? SessionResumptionConfig()
                resumption.handle = handle
                setup.sessionResumption = resumption
                if let c = core.connections[id] { write(.setup(setup), to: c, id: id, core: &core) }
            case .live(let id, let resumed):
                events.append(.setupComplete(resumed: resumed))
                if let start = core.handoverStartedAt {
                    core.handoverStartedAt = nil
                    logger.info("hand-over to a new connection took \(Int(((now - start) * 1000).rounded())) ms (resumed: \(resumed))")
                }
                guard let c = core.connections[id] else { break }
                goLive(c, id: id, resumed: resumed, core: &core, events: &events)
            case .closeTransport(let id, let code, let reason):
                if reason == "hand-over" { core.handoverStartedAt = now }
                if core.machine.liveID == nil || core.machine.liveID == id { core.carryActivity = core.wireActivityOpen || core.carryActivity }
                core.connections.removeValue(forKey: id)?.close(code: code, reason: reason)
            case .reconnecting(let attempt, let delay, let after):
                events.append(.reconnecting(attempt: attempt, delay: delay, after: after))
            case .fail(let reason):
                events.append(.failed(reason))
            case .freshSession(let cause):
                logger.info("starting a fresh session: \(cause)")
                events.append(.freshSession(cause))
            case .renewCredential(let after):
                logger.info("the credential was refused (\(after.codeAndReason)); getting a new one")
                core.configuration.authorizer?.discard()
            }
        }
    }

    /// Opens connection `id` with a credential fetched for it, unless the session moved on meanwhile.
    private func open(id: Int, credential: Credential) {
        core.withLock { core in
            guard case .connecting(id, _) = core.machine.state else { return }
            core.connections[id] = transport.open(
                url: core.configuration.endpoint ?? credential.defaultEndpoint, headers: credential.headers
            ) { [weak self] event in
                self?.transportEvent(event, id: id)
            }
        }
    }

    /// A connection went live: seed a fresh session, send again the turn its predecessor left unanswered, then
    /// what was held, then the first queued typed turn.
    private func goLive(_ c: any LiveConnection, id: Int, resumed: Bool, core: inout Core, events: inout [LiveEvent]) {
        core.wireActivityOpen = false
        core.offlineDropping = false
        if !resumed, !core.log.isEmpty {
            write(.clientContent(ClientContent(turns: core.log.contents, turnComplete: false)), to: c, id: id, core: &core)
        }
        if let p = core.pending, p.connection != id, !p.resent, !(core.carryActivity && p.text == nil) {
            logger.info("sending the unanswered \(p.text == nil ? "spoken" : "typed") turn again on the new connection")
            for m in p.messages { write(m, to: c, id: id, core: &core) }
            core.pending?.resent = true
            events.append(.turnResent(typed: p.text != nil))
        }
        var held = core.held
        core.held = []
        core.heldAudioBytes = 0
        if core.carryActivity, held.first?.message != .realtimeInput(.activityStart) {
            held.insert(Held(message: .realtimeInput(.activityStart)), at: 0)
        }
        core.carryActivity = false
        for h in held { write(h.message, to: c, id: id, core: &core) }
        sendNextQueued(core: &core, events: &events)
    }

    private func attemptNumber(_ state: ConnectionMachine.State) -> Int {
        if case .connecting(_, let a) = state { a } else { 0 }
    }

    private func armTimer(core: inout Core) {
        core.timerGeneration += 1
        core.timer?.cancel()
        core.timer = nil
        let watchdog = core.machine.liveID == nil ? nil : core.watchdog?.nextDeadline
        guard let deadline = [core.machine.nextDeadline, watchdog].compactMap({ $0 }).min() else { return }
        let generation = core.timerGeneration
        // On the network thread's timer wheel, not a task per arming.
        core.timer = NetworkExecutor.shared.schedule(after: max(0, deadline - now) + 0.001) { [weak self] in
            guard let self, self.core.withLock({ $0.timerGeneration == generation }) else { return }
            self.step(.tick)
        }
    }

    /// Every 2 s: a resume from suspend or a new default route makes an offline session retry at once (and
    /// replaces a live connection after a suspend, since it most likely died meanwhile).
    private func watchNetwork() {
        let watch = Mutex(NetworkWatch())
        let monotonic = SuspendingClock()
        let origin = monotonic.now
        NetworkExecutor.shared.repeatEvery(2) { [weak self] in
            guard let s = self, !s.core.withLock({ $0.closing }) else { return false }
            let m = origin.duration(to: monotonic.now)
            let change = watch.withLock {
                $0.observe(wall: Date().timeIntervalSince1970, monotonic: m.inSeconds, route: NetworkWatch.readDefaultRoute())
            }
            if let change {
                let offline = s.isOffline
                if case .resumedFromSuspend = change {
                    s.logger.info("network watch: \(change); reconnecting at once")
                    s.step(.retryNow(evenIfLive: true))
                } else if offline {
                    s.logger.info("network watch: \(change); retrying at once")
                    s.step(.retryNow(evenIfLive: false))
                }
            }
            return true
        }
    }

    // MARK: - Receiving

    private func transportEvent(_ event: TransportEvent, id: Int) {
        switch event {
        case .opened:
            step(.transportOpened(id: id))
        case .closed(let reason):
            let current = core.withLock { core -> Bool in
                guard core.connections[id] != nil else { return false }
                core.connections[id] = nil
                core.watchdog?.reset()
                if core.machine.liveID == id { core.carryActivity = core.wireActivityOpen }
                return true
            }
            if current {
                logger.info("connection closed: \(reason.codeAndReason)")
                continuation.yield(.connectionClosed(reason))
            }
            step(.transportClosed(id: id, reason))
        case .frame(let bytes):
            guard core.withLock({ $0.connections[id] != nil }) else { return }
            do {
                handle(try codec.decodeServer(bytes), id: id)
            } catch {
                logger.warning("malformed server frame: \(error)")
                continuation.yield(.protocolError("\(error)"))
            }
        }
    }

    /// Reply audio: audible audio answers the turn; near silence for too long is a stall.
    private func replyAudio(_ pcm: Data) {
        let now = self.now
        var out: [LiveEvent] = []
        core.withLock { core in
            switch core.watchdog?.replyAudio(pcm, now: now) {
            case .audible?, nil: answered(core: &core)
            case .quiet?: break
            case .stalled(let finding, let recovery)?:
                recover(finding, recovery, core: &core, events: &out)
                armTimer(core: &core)
            }
        }
        for e in out { continuation.yield(e) }
    }

    /// Notes model output for the pending turn and the conversation log.
    private func modelSaid(_ text: String?) {
        core.withLock { core in
            answered(core: &core)
            if let text { core.log.append(role: "model", text) }
        }
    }

    /// Text parts are thoughts on native-audio models answering with audio.
    private var textPartsAreThoughts: Bool {
        let setup = self.setup
        return LiveModel.traits(of: setup.model).textPartsAreThoughts && setup.generationConfig?.responseModalities?.first != "TEXT"
    }

    /// One handler per field, in a fixed order; interruption first because it outranks audio.
    private func handle(_ message: ServerMessage, id: Int) {
        if message.setupComplete != nil { step(.setupComplete(id: id)) }
        if let content = message.serverContent {
            if content.interrupted == true {
                // The end of an earlier reply; a turn still waiting for its answer keeps the watchdog armed.
                core.withLock { if $0.pending == nil { $0.watchdog?.reset() } }
                playback?(.flush)
                continuation.yield(.interrupted)
            }
            if let t = content.interimInputTranscription, let text = t.text, !text.isEmpty {
                continuation.yield(.interimInputTranscription(text))
            }
            if let t = content.inputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                step(.turnStarted)
                core.withLock { core in
                    // A typed turn's echo is not new speech.
                    if core.pending?.text == nil { core.log.append(role: "user", text) }
                }
                continuation.yield(.inputTranscription(text, finished: t.finished ?? false))
            }
            if let status = content.interactionStatus?.interactionStatusText {
                continuation.yield(.interactionStatus(status))
            }
            if let turn = content.modelTurn {
                step(.turnStarted)
                core.withLock { $0.turnEndReported = false }
                let thoughts = textPartsAreThoughts
                for part in turn.parts {
                    if let blob = part.inlineData, blob.mimeType.hasPrefix("audio/") {
                        replyAudio(blob.data)
                        if let playback { playback(.play(blob.data)) } else { continuation.yield(.audio(blob.data)) }
                    } else if let text = part.text {
                        if part.thought == true || thoughts {
                            // The model is working: not yet an answer (a close now still sends the turn again).
                            core.withLock { $0.watchdog?.replied() }
                            continuation.yield(.thought(text))
                        } else {
                            modelSaid(text)
                            continuation.yield(.modelText(text))
                        }
                    }
                    for activity in ModelActivity.of(part) { continuation.yield(.modelActivity(activity)) }
                }
            }
            if let t = content.outputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                modelSaid(text)
                continuation.yield(.outputTranscription(text, finished: t.finished ?? false))
            }
            if let grounding = content.groundingMetadata.flatMap({ ModelActivity.grounding($0) }) {
                continuation.yield(.modelActivity(grounding))
            }
        }
        if let call = message.toolCall {
            step(.turnStarted)
            modelSaid(nil)
            core.withLock { $0.watchdog?.reset() }  // the tool runs now; its response re-arms the watchdog
            continuation.yield(.toolCall(call.functionCalls))
        }
        if let cancel = message.toolCallCancellation { continuation.yield(.toolCallCancellation(ids: cancel.ids)) }
        if let usage = message.usageMetadata { continuation.yield(.usage(usage)) }
        if let content = message.serverContent {
            if content.generationComplete == true { continuation.yield(.generationComplete) }
            // Some models end a turn with `generationComplete` alone, or say they wait for input.
            let ends = content.turnComplete == true || content.waitingForInput == true
                || (content.generationComplete == true && LiveModel.traits(of: setup.model).mayOmitTurnComplete)
            let reported = core.withLock { core -> Bool in
                let was = core.turnEndReported
                if ends { core.turnEndReported = content.turnComplete != true }
                return was
            }
            if ends, !reported {
                core.withLock { if $0.pending == nil { $0.watchdog?.reset() } }
                playback?(.turnComplete)
                continuation.yield(.turnComplete(reason: content.turnCompleteReason))
                step(.turnEnded)
                var out: [LiveEvent] = []
                core.withLock { core in sendNextQueued(core: &core, events: &out) }
                for e in out { continuation.yield(e) }
            }
        }
        if let update = message.sessionResumptionUpdate {
            continuation.yield(.resumptionUpdate(resumable: update.usableHandle != nil))
            if let handle = update.usableHandle { step(.resumptionHandle(handle)) }
        }
        if let goAway = message.goAway {
            let left = goAway.timeLeftDuration ?? .seconds(0)
            continuation.yield(.goAway(timeLeft: left))
            step(.goAway(id: id, timeLeft: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
        }
    }
}
