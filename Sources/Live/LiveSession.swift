import Foundation
import Logging
import Synchronization

/// Everything a session needs to know to connect.
public struct LiveConfiguration: Sendable {
    /// The WebSocket URL; nil for the service's default for the credential.
    public var endpoint: String?
    public var credential: Credential
    /// The `setup` message (without a resumption handle: the session adds that).
    public var setup: Setup
    public var policy: ConnectionMachine.Policy
    /// Input held while no connection is live, in bytes of mic audio (default 30 s); oldest dropped beyond it.
    public var heldAudioLimit: Int

    public init(
        endpoint: String? = nil, credential: Credential, setup: Setup,
        policy: ConnectionMachine.Policy = .init(), heldAudioLimit: Int = 30 * 32_000
    ) {
        self.endpoint = endpoint
        self.credential = credential
        self.setup = setup
        self.policy = policy
        self.heldAudioLimit = heldAudioLimit
    }

    /// The URL to dial.
    public var url: String { endpoint ?? credential.defaultEndpoint }
}

/// A conversation with the Live service across as many connections as it takes: sends `setup` first, holds
/// input until `setupComplete`, reports typed events, and keeps the conversation going through `goAway`
/// hand-overs and dropped connections. Every method is thread-safe and never blocks, so the capture thread
/// can hand mic audio straight to `sendAudio`.
public final class LiveSession: Sendable {
    /// Events for the main loop.
    public let events: AsyncStream<LiveEvent>
    private let continuation: AsyncStream<LiveEvent>.Continuation
    private let transport: any LiveTransport
    private let playback: (@Sendable (PlaybackCommand) -> Void)?
    private let logger: Logger
    private let codec = LiveCodec()
    private let clock = ContinuousClock()
    private let epoch: ContinuousClock.Instant
    private let core: Mutex<Core>

    struct Core: ~Copyable {
        var configuration: LiveConfiguration
        var machine: ConnectionMachine
        var connections: [Int: any LiveConnection] = [:]
        /// Input waiting for a live connection.
        var held: [ClientMessage] = []
        var heldAudioBytes = 0
        /// The user's activity (push-to-talk) is open after everything sent and held.
        var activityOpen = false
        /// Activity was open on the wire when the last connection went away: reopen it on the next.
        var carryActivity = false
        var wireActivityOpen = false
        var timerGeneration = 0
        var sentMessages = 0
        var closing = false
        /// When the last planned hand-over closed the old connection, to time the gap.
        var handoverStartedAt: Double?
    }

    /// - Parameter playback: receives reply audio and flushes directly on the receive path; when nil, audio
    ///   arrives as `.audio` events instead.
    public init(
        configuration: LiveConfiguration, transport: any LiveTransport = WebSocketTransport(),
        logger: Logger = Logger(label: "parley.live"), playback: (@Sendable (PlaybackCommand) -> Void)? = nil
    ) {
        (events, continuation) = AsyncStream<LiveEvent>.makeStream(bufferingPolicy: .unbounded)
        self.transport = transport
        self.playback = playback
        self.logger = logger
        epoch = clock.now
        core = Mutex(Core(configuration: configuration, machine: ConnectionMachine(policy: configuration.policy)))
    }

    // MARK: - Commands

    /// Opens the first connection.
    public func start() { step(.start) }

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

    /// A typed user turn (`clientContent`), which also interrupts a reply in progress.
    public func sendText(_ text: String) { send(.clientContent(.userText(text)), startsTurn: true) }

    /// Adds turns to the context without asking for a reply (`turnComplete: false`).
    public func seedContext(_ turns: [Content]) {
        guard !turns.isEmpty else { return }
        send(.clientContent(ClientContent(turns: turns, turnComplete: false)))
    }

    /// Push-to-talk pressed (manual activity detection only).
    public func activityStart() {
        core.withLock { $0.activityOpen = true }
        send(.realtimeInput(.activityStart), startsTurn: true)
    }

    /// Push-to-talk released: call after the last mic chunk has been handed over.
    public func activityEnd() {
        core.withLock { $0.activityOpen = false }
        send(.realtimeInput(.activityEnd))
    }

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

    /// The current setup (e.g. its voice).
    public var setup: Setup { core.withLock { $0.configuration.setup } }

    // MARK: - Sending

    private func send(_ message: ClientMessage, startsTurn: Bool = false) {
        var dropped = 0
        core.withLock { core in
            if core.closing { return }
            if let id = core.machine.liveID, let connection = core.connections[id] {
                write(message, to: connection, core: &core)
            } else {
                core.held.append(message)
                if case .realtimeInput(.audio(let blob)) = message {
                    core.heldAudioBytes += blob.data.count
                    while core.heldAudioBytes > core.configuration.heldAudioLimit,
                        let i = core.held.firstIndex(where: { if case .realtimeInput(.audio) = $0 { true } else { false } })
                    {
                        if case .realtimeInput(.audio(let old)) = core.held.remove(at: i) {
                            core.heldAudioBytes -= old.data.count
                            dropped += old.data.count
                        }
                    }
                }
            }
        }
        if dropped > 0 { continuation.yield(.heldAudioDropped(bytes: dropped)) }
        if startsTurn { step(.turnStarted) }
    }

    private func write(_ message: ClientMessage, to connection: any LiveConnection, core: inout Core) {
        do {
            connection.send(try codec.encode(message))
            core.sentMessages += 1
            if case .realtimeInput(let input) = message {
                if input == .activityStart { core.wireActivityOpen = true }
                if input == .activityEnd { core.wireActivityOpen = false }
            }
        } catch {
            logger.error("cannot encode \(message.kind): \(error)")
        }
    }

    // MARK: - The machine

    private var now: Double {
        let d = clock.now - epoch
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func step(_ event: ConnectionMachine.Event) {
        let now = self.now
        var out: [LiveEvent] = []
        core.withLock { core in
            let actions = core.machine.handle(event, now: now)
            perform(actions, core: &core, events: &out)
            armTimer(core: &core)
        }
        for e in out { continuation.yield(e) }
    }

    private func perform(_ actions: [ConnectionMachine.Action], core: inout Core, events: inout [LiveEvent]) {
        for action in actions {
            switch action {
            case .connect(let id, let handle):
                events.append(.connecting(attempt: attemptNumber(core.machine.state), resuming: handle != nil))
                let configuration = core.configuration
                core.connections[id] = transport.open(
                    url: configuration.url, headers: configuration.credential.headers
                ) { [weak self] event in
                    self?.transportEvent(event, id: id)
                }
            case .sendSetup(let id, let handle):
                var setup = core.configuration.setup
                setup.sessionResumption = SessionResumptionConfig(handle: handle)
                if let c = core.connections[id] { write(.setup(setup), to: c, core: &core) }
            case .live(let id, let resumed):
                events.append(.setupComplete(resumed: resumed))
                if let start = core.handoverStartedAt {
                    core.handoverStartedAt = nil
                    logger.info("hand-over to a new connection took \(Int(((now - start) * 1000).rounded())) ms (resumed: \(resumed))")
                }
                guard let c = core.connections[id] else { break }
                core.wireActivityOpen = false
                var held = core.held
                core.held = []
                core.heldAudioBytes = 0
                if core.carryActivity, held.first != .realtimeInput(.activityStart) {
                    held.insert(.realtimeInput(.activityStart), at: 0)
                }
                core.carryActivity = false
                for m in held { write(m, to: c, core: &core) }
            case .closeTransport(let id, let code, let reason):
                if reason == "hand-over" { core.handoverStartedAt = now }
                if core.machine.liveID == nil || core.machine.liveID == id { core.carryActivity = core.wireActivityOpen || core.carryActivity }
                core.connections.removeValue(forKey: id)?.close(code: code, reason: reason)
            case .reconnecting(let attempt, let delay, let after):
                events.append(.reconnecting(attempt: attempt, delay: delay, after: after))
            case .fail(let reason):
                events.append(.failed(reason))
            }
        }
    }

    private func attemptNumber(_ state: ConnectionMachine.State) -> Int {
        if case .connecting(_, let a) = state { a } else { 0 }
    }

    private func armTimer(core: inout Core) {
        core.timerGeneration += 1
        guard let deadline = core.machine.nextDeadline else { return }
        let generation = core.timerGeneration
        let delay = max(0, deadline - now)
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(delay * 1000) + 1))
            guard let self, self.core.withLock({ $0.timerGeneration == generation }) else { return }
            self.step(.tick)
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
                if core.machine.liveID == id { core.carryActivity = core.wireActivityOpen }
                return true
            }
            if current { continuation.yield(.connectionClosed(reason)) }
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

    /// One handler per field, in a fixed order; interruption first because it outranks audio.
    private func handle(_ message: ServerMessage, id: Int) {
        if message.setupComplete != nil { step(.setupComplete(id: id)) }
        if let content = message.serverContent {
            if content.interrupted == true {
                playback?(.flush)
                continuation.yield(.interrupted)
            }
            if let t = content.inputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                step(.turnStarted)
                continuation.yield(.inputTranscription(text, finished: t.finished ?? false))
            }
            if let turn = content.modelTurn {
                step(.turnStarted)
                for part in turn.parts {
                    if let blob = part.inlineData, blob.mimeType.hasPrefix("audio/") {
                        if let playback { playback(.play(blob.data)) } else { continuation.yield(.audio(blob.data)) }
                    } else if let text = part.text, part.thought != true {
                        continuation.yield(.modelText(text))
                    }
                }
            }
            if let t = content.outputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                continuation.yield(.outputTranscription(text, finished: t.finished ?? false))
            }
        }
        if let call = message.toolCall {
            step(.turnStarted)
            continuation.yield(.toolCall(call.functionCalls))
        }
        if let cancel = message.toolCallCancellation { continuation.yield(.toolCallCancellation(ids: cancel.ids)) }
        if let usage = message.usageMetadata { continuation.yield(.usage(usage)) }
        if let content = message.serverContent {
            if content.generationComplete == true { continuation.yield(.generationComplete) }
            if content.turnComplete == true {
                playback?(.turnComplete)
                continuation.yield(.turnComplete(reason: content.turnCompleteReason))
                step(.turnEnded)
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
