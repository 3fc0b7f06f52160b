import Foundation
import Logging

/// The rules of a Live conversation as a value type: it takes what happened (user input, server messages field
/// by field, transport opens and closes, timer fires, network changes), with the time it happened, and returns
/// actions for `LiveSession` to carry out (write to a connection, open or close one, arm the timer, report an
/// event, hand audio to playback). It owns the `ConnectionMachine` and the `ReplyWatchdog`, holds input while
/// no connection is live, queues typed turns while offline or while an earlier turn waits for its answer (one
/// question, one answer), sends every unanswered turn again on the next connection (in order, one per answer),
/// reopens push-to-talk activity after a hand-over, and seeds a fresh session with the conversation so far.
/// It does no I/O and reads no clock.
public struct SessionMachine: Sendable {
    /// How much input is kept while no connection is live.
    public struct Limits: Sendable, Equatable {
        /// Mic audio held during a planned hand-over, in bytes; also the longest push-to-talk turn kept for
        /// sending again after a close.
        public var heldAudio: Int
        /// Mic audio held while offline; beyond it the held audio is dropped and none is held until the
        /// connection is back.
        public var offlineAudio: Int
        /// Typed turns queued while offline, at most.
        public var queuedText: Int

        public init(heldAudio: Int = 30 * 32_000, offlineAudio: Int = 2 * 32_000, queuedText: Int = 50) {
            self.heldAudio = heldAudio
            self.offlineAudio = offlineAudio
            self.queuedText = queuedText
        }
    }

    public enum Input: Sendable, Equatable {
        /// Open the first connection.
        case start
        /// Close the session for good.
        case close
        /// The user asked to retry at once.
        case retryNow
        case networkChanged(NetworkWatch.Change)
        /// 16 kHz mono s16le mic audio.
        case audio(Data)
        /// A JPEG frame; dropped unless a connection is live.
        case video(Data)
        /// A typed turn; its id is `lastTextID` afterwards.
        case text(String)
        /// Turns added to the context without asking for a reply.
        case seedContext([Content])
        /// The conversation from an earlier run, to seed a fresh session with.
        case preload([Content])
        case activityStart
        case activityEnd
        case audioStreamEnd
        case toolResponse([FunctionResponse])
        /// The next connection's setup; move to it once it is safe.
        case reconfigure(Setup, requireHandle: Bool)
        /// Change the instruction, tools or voice of the conversation without losing it (see
        /// `SessionMachine+Context`); `duringReply`: the model is answering, so a resume waits for a handle
        /// that covers the reply.
        case changeContext(ContextChange, duringReply: Bool)
        /// A handle saved by an earlier run, `age` seconds old.
        case restoreHandle(Secret, age: Double)
        case opened(connection: Int)
        case closed(connection: Int, CloseReason)
        case message(ServerMessage, connection: Int)
        case malformedFrame(String, connection: Int)
        /// The timer set by `.setTimer` fired.
        case timerFired
    }

    public enum Action: Sendable, Equatable {
        /// Open a transport with this id (the URL and headers are the shell's to find; a new session, with no
        /// handle, may need a new credential).
        case open(connection: Int, newSession: Bool)
        /// The credential was refused as spent or expired: drop it before the next connection asks for one.
        case renewCredential
        case send(ClientMessage, connection: Int)
        case close(connection: Int, code: Int, reason: ConnectionMachine.ClientClose)
        /// Feed `.timerFired` at this time (replacing any timer set before).
        case setTimer(at: Double)
        case cancelTimer
        case emit(LiveEvent)
        /// Straight to playback on the receive path (or as `.audio` events when there is none).
        case playback(PlaybackCommand)
        case log(Logger.Level, String)
    }

    /// Where input goes.
    enum Wire: Sendable, Equatable {
        /// A connection is live and input goes straight out.
        case live(Activity)
        /// No connection is live: input waits for the next one.
        case waiting(Waiting)
        /// `close` was called: input is dropped.
        case closed
    }

    struct Waiting: Sendable, Equatable {
        /// Everything but typed turns, in order.
        var held: [ClientMessage] = []
        var audio: HeldAudio = .holding(bytes: 0, carryActivity: false)
        /// When a planned hand-over closed the old connection, to time the gap.
        var handoverSince: Double?
    }

    /// Push-to-talk activity on the live connection's wire.
    enum Activity: Sendable, Equatable {
        case none
        /// `activityStart` went out without its `activityEnd`; what went out is kept to send the turn again if
        /// the connection closes before the answer.
        case open(sent: [ClientMessage], bytes: Int)
        /// Open, and longer than the held-audio limit: too long to keep for sending again.
        case openTooLong
    }

    enum HeldAudio: Sendable, Equatable {
        /// Mic audio is held (`bytes` of it). `carryActivity`: activity was open on the wire when the last
        /// connection went away, so the next one reopens it.
        case holding(bytes: Int, carryActivity: Bool)
        /// Offline past the short window: mic input is dropped until a connection is live (reported once).
        case dropping
    }

    /// A user turn written to the wire, until the model answers it.
    struct PendingTurn: Sendable, Equatable {
        var messages: [ClientMessage]
        /// The typed text, for the conversation log once answered; nil for a spoken turn.
        var text: String?
        /// The connection it was last written on; on any other it waits to be sent again.
        var connection: Int
        /// Sent again once already: a connection that closes before its answer again does not get it a third
        /// time (a turn that makes the server close would otherwise loop), unless the watchdog moved on.
        var resent = false
        /// The model began to answer it on `connection`: later turns may go out, but the turn is kept until the
        /// reply ends, because a close before that loses it (a handle is not resumable during generation, so a
        /// resumed session predates the turn) and it is sent again.
        var replying = false
        /// In the conversation log already (its reply began once).
        var logged = false

        /// Written on `id` and not answered there yet: what the next turn waits for.
        func awaits(on id: Int?) -> Bool { connection == id && !replying }
    }

    public private(set) var connection: ConnectionMachine
    public internal(set) var setup: Setup
    public let limits: Limits
    var wire: Wire = .waiting(Waiting())
    /// Connections opened and not yet closed; frames and closes from any other are stale.
    private(set) var open: Set<Int> = []
    /// Typed turns waiting: while offline, and behind an unanswered turn (one answer each).
    private(set) var textQueue: [(id: Int, text: String)] = []
    /// The id of the last typed turn taken.
    public private(set) var lastTextID = 0
    /// User turns written to the wire and not answered yet, oldest first. Those written on a connection that
    /// is gone are sent again on the next, one per answer, before the queued typed turns.
    var pending: [PendingTurn] = []
    var watchdog: ReplyWatchdog?
    var log = ConversationLog()
    /// The end of the model's current turn was already reported (by `generationComplete` or `waitingForInput`).
    var turnEndReported = false
    /// The setup written on the current connection (without its handle), moved on by each `contextUpdate`:
    /// what the model there was told.
    var sentSetup: Setup?
    /// Context changes that wait for a connection to go live under them, to be reported then.
    var unreportedChanges: [ContextChange] = []
    /// The deadline the shell's timer is set for.
    private var armed: Double?
    /// The actions of the input being handled, in order, and its time.
    var out: [Action] = []
    var now = 0.0

    public init(setup: Setup, policy: ConnectionMachine.Policy = .init(), limits: Limits = .init(),
                watchdog: ReplyWatchdog.Policy? = .init(), seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.setup = setup
        self.limits = limits
        connection = ConnectionMachine(policy: policy, seed: seed)
        self.watchdog = watchdog.map { ReplyWatchdog(policy: $0) }
    }

    // MARK: - Reading

    /// Whether input goes straight to a live connection.
    public var isLive: Bool { if case .live = wire { true } else { false } }

    /// Whether `close` was called.
    public var isClosed: Bool { if case .closed = wire { true } else { false } }

    /// Whether connection `id` is the one being dialled (a credential fetched for it is still wanted).
    public func awaitsTransport(_ id: Int) -> Bool {
        if case .connecting(id, _) = connection.state { true } else { false }
    }

    /// Whether a resumption handle under its lifetime is held at `now`.
    public func hasResumptionHandle(now: Double) -> Bool {
        connection.handleAge(now: now).map { $0 < connection.policy.handleLifetime } ?? false
    }

    /// The latest handle and its age in seconds at `now`.
    public func resumptionHandle(now: Double) -> (handle: Secret, age: Double)? {
        connection.latestHandle.map { ($0.secret, now - $0.at) }
    }

    // MARK: - Input

    public mutating func handle(_ input: Input, now: Double) -> [Action] {
        self.now = now
        out = []
        switch input {
        case .start:
            if !isClosed { step(.start) }
        case .close:
            guard !isClosed else { break }
            wire = .closed
            perform(connection.handle(.stop, now: now))
            refuseUnreportedChanges()
            out.append(.emit(.closed))
        case .retryNow:
            step(.retryNow(evenIfLive: false))
        case .networkChanged(let change):
            networkChanged(change)
        case .audio(let pcm):
            send(.realtimeInput(.micAudio(pcm)))
        case .video(let jpeg):
            if isLive { send(.realtimeInput(.video(Blob(mimeType: JPEGHeader.mimeType, data: jpeg)))) }
        case .text(let text):
            typed(text)
        case .seedContext(let turns):
            if !turns.isEmpty { send(.clientContent(ClientContent(turns: turns, turnComplete: false))) }
        case .preload(let turns):
            for t in turns { log.appendTurn(role: t.role ?? "user", t.text) }
        case .activityStart:
            send(.realtimeInput(.activityStart))
            if !isClosed { step(.turnStarted) }
        case .activityEnd:
            send(.realtimeInput(.activityEnd))
        case .audioStreamEnd:
            send(.realtimeInput(.audioStreamEnd))
        case .toolResponse(let responses):
            if !responses.isEmpty { send(.toolResponse(ToolResponse(functionResponses: responses))) }
        case .reconfigure(let setup, let requireHandle):
            self.setup = setup
            step(.handoverRequested(requireHandle: requireHandle))
        case .changeContext(let change, let duringReply):
            changeContext(change, duringReply: duringReply)
        case .restoreHandle(let secret, let age):
            _ = connection.handle(.resumptionHandle(secret), now: now - age)
        case .opened(let id):
            step(.transportOpened(id: id))
        case .closed(let id, let reason):
            transportClosed(id, reason)
        case .message(let message, let id):
            if open.contains(id) { receive(message, on: id) }
        case .malformedFrame(let error, let id):
            if open.contains(id) {
                out.append(.log(.warning, "malformed server frame: \(error)"))
                out.append(.emit(.protocolError(error)))
            }
        case .timerFired:
            armed = nil
            step(.tick)
        }
        rearm()
        return out
    }

    /// One deadline for the shell's one timer: the connection's (backoff, setup, hand-over) or the watchdog's.
    private mutating func rearm() {
        let watchdogDeadline = isLive ? watchdog?.nextDeadline : nil
        let deadline = isClosed ? nil : [connection.nextDeadline, watchdogDeadline].compactMap { $0 }.min()
        guard deadline != armed else { return }
        armed = deadline
        out.append(deadline.map { .setTimer(at: $0) } ?? .cancelTimer)
    }

    private mutating func networkChanged(_ change: NetworkWatch.Change) {
        guard !isClosed else { return }
        if case .resumedFromSuspend = change {
            out.append(.log(.info, "network watch: \(change); reconnecting at once"))
            step(.retryNow(evenIfLive: true))
        } else if connection.isOffline {
            out.append(.log(.info, "network watch: \(change); retrying at once"))
            step(.retryNow(evenIfLive: false))
        }
    }

    /// A typed turn goes out at once when live and no turn waits before it (queued, or unanswered: a server
    /// reading several turns back to back answers only the last); otherwise it is queued (and the connection
    /// is asked to hurry), or refused past the limit.
    private mutating func typed(_ text: String) {
        lastTextID += 1
        let id = lastTextID
        guard !isClosed else { return }
        if textQueue.isEmpty, !pending.contains(where: { $0.awaits(on: connection.liveID) }), let live = connection.liveID, isLive {
            write(typedTurn(text), to: live)
            step(.turnStarted)
        } else if textQueue.count >= limits.queuedText {
            out.append(.emit(.textNotQueued(id: id, limit: limits.queuedText)))
        } else {
            textQueue.append((id, text))
            out.append(.emit(.textQueued(id: id, text: text, waiting: textQueue.count)))
            step(.userWaiting)
        }
    }

    /// A typed turn as the model takes it: `clientContent`, or `realtimeInput.text` where that is refused.
    private func typedTurn(_ text: String) -> ClientMessage {
        LiveModel.traits(of: setup.model).midSessionClientContent
            ? .clientContent(.userText(text)) : .realtimeInput(.text(text))
    }

    /// Sends the next turn when nothing on the live wire waits for an answer: first an unanswered one from a
    /// connection that is gone, then the next queued typed turn.
    mutating func sendNextQueued() {
        guard let id = connection.liveID, isLive, !pending.contains(where: { $0.awaits(on: id) }) else { return }
        if resendNext(on: id) { return }
        guard !textQueue.isEmpty else { return }
        let next = textQueue.removeFirst()
        write(typedTurn(next.text), to: id)
        out.append(.emit(.queuedTextSent(ids: [next.id])))
    }

    // MARK: - The connection

    mutating func step(_ event: ConnectionMachine.Event) {
        perform(connection.handle(event, now: now))
        if connection.liveID != nil, let (finding, recovery) = watchdog?.tick(now: now) {
            recover(finding, recovery)
        }
    }

    /// The watchdog noticed a silent failure. A nudge sends the oldest unanswered turn again on the same
    /// connection (a stuck model answers a repeated question; an empty `realtimeInput.text` is not known to
    /// help and may be refused); with nothing to send again (silence after a tool response), or when the nudge
    /// did not help, the session moves to a new connection with its handle, where the turns are sent again.
    mutating func recover(_ finding: ReplyWatchdog.Finding, _ recovery: ReplyWatchdog.Recovery) {
        if recovery == .nudge, let id = connection.liveID, isLive, let p = pending.first(where: { $0.awaits(on: id) }) {
            out.append(.log(.warning, "reply watchdog: \(finding); sending the turn again"))
            out.append(.emit(.replyStalled(finding, recovery: .nudge)))
            for m in p.messages { out.append(.send(m, connection: id)) }
            return
        }
        out.append(.log(.warning, "reply watchdog: \(finding); resuming on a new connection"))
        out.append(.emit(.replyStalled(finding, recovery: .resume)))
        watchdog?.reset()
        for i in pending.indices { pending[i].resent = false }
        perform(connection.handle(.retryNow(evenIfLive: true), now: now))
    }

    private mutating func perform(_ actions: [ConnectionMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let id, let handle):
                let attempt = if case .connecting(_, let a) = connection.state { a } else { 0 }
                out.append(.emit(.connecting(attempt: attempt, resuming: handle != nil)))
                open.insert(id)
                out.append(.open(connection: id, newSession: handle == nil))
            case .sendSetup(let id, let handle):
                var setup = self.setup
                var resumption = setup.sessionResumption ?? SessionResumptionConfig()  // keeps `transparent` (Vertex)
                resumption.handle = handle
                setup.sessionResumption = resumption
                if open.contains(id) {
                    sentSetup = self.setup
                    write(.setup(setup), to: id)
                }
            case .live(let id, let resumed):
                out.append(.emit(.setupComplete(resumed: resumed)))
                if case .waiting(let w) = wire, let since = w.handoverSince {
                    let ms = Int(((now - since) * 1000).rounded())
                    out.append(.log(.info, "hand-over to a new connection took \(ms) ms (resumed: \(resumed))"))
                }
                if open.contains(id) { goLive(id, resumed: resumed) }
            case .closeTransport(let id, let code, let reason):
                leaveLive(handover: reason == .handover)
                open.remove(id)
                out.append(.close(connection: id, code: code, reason: reason))
            case .reconnecting(let attempt, let delay, let after):
                out.append(.emit(.reconnecting(attempt: attempt, delay: delay, after: after)))
            case .fail(let reason):
                out.append(.emit(.failed(reason)))
                refuseUnreportedChanges()
            case .freshSession(let cause):
                out.append(.log(.info, "starting a fresh session: \(cause)"))
                out.append(.emit(.freshSession(cause)))
            case .renewCredential(let after):
                out.append(.log(.info, "the credential was refused (\(after.codeAndReason)); getting a new one"))
                out.append(.renewCredential)
            }
        }
    }

    private mutating func transportClosed(_ id: Int, _ reason: CloseReason) {
        if open.remove(id) != nil {
            watchdog?.reset()
            if connection.liveID == id { leaveLive() }
            out.append(.log(.info, "connection closed: \(reason.codeAndReason)"))
            out.append(.emit(.connectionClosed(reason)))
        }
        step(.transportClosed(id: id, reason))
    }
}
