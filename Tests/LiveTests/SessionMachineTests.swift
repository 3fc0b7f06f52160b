import Foundation
import ParleyTesting
import ParleyTime
import XCTest

@testable import Live

/// The session's rules driven directly on a hand-moved clock: no sockets, no timers, no sleeps. Each test
/// asserts on what the machine asks the shell to do (what goes on which connection, which events the app sees).
final class SessionMachineTests: XCTestCase {
    typealias Action = SessionMachine.Action

    var m = SessionMachine(setup: Setup(model: "models/\(LiveModel.defaultID)"), policy: SessionMachineTests.policy)
    var now = 100.0
    /// The deadline the machine last asked the shell's timer for.
    var timer: Double?

    static var policy: ConnectionMachine.Policy {
        var p = ConnectionMachine.Policy()
        p.jitter = 0
        return p
    }

    func machine(model: String = LiveModel.defaultID, limits: SessionMachine.Limits = .init()) {
        m = SessionMachine(setup: Setup(model: "models/\(model)"), policy: Self.policy, limits: limits)
    }

    @discardableResult
    func on(_ input: SessionMachine.Input) -> [Action] {
        let actions = m.handle(input, now: now)
        for a in actions {
            if case .setTimer(let t) = a { timer = t } else if a == .cancelTimer { timer = nil }
        }
        return actions
    }

    /// Moves the clock to the armed deadline and fires the timer.
    @discardableResult
    func fireTimer() -> [Action] {
        guard let t = timer else {
            XCTFail("no timer armed")
            return []
        }
        now = max(now, t)
        return on(.timerFired)
    }

    @discardableResult
    func server(_ message: ServerMessage, on id: Int) -> [Action] { on(.message(message, connection: id)) }

    @discardableResult
    func server(_ content: ServerContent, on id: Int) -> [Action] { server(ServerMessage(serverContent: content), on: id) }

    func sent(_ actions: [Action], on id: Int? = nil) -> [ClientMessage] {
        actions.compactMap { if case .send(let msg, let c) = $0, id == nil || c == id { msg } else { nil } }
    }

    func events(_ actions: [Action]) -> [LiveEvent] {
        actions.compactMap { if case .emit(let e) = $0 { e } else { nil } }
    }

    func opened(_ actions: [Action]) -> Int? {
        actions.lazy.compactMap { if case .open(let id, _) = $0 { id } else { nil } }.first
    }

    /// Opens the connection the actions asked for and completes its setup; returns its id and what going live did.
    @discardableResult
    func goLive(_ actions: [Action]) -> (id: Int, actions: [Action]) {
        guard let id = opened(actions) else {
            XCTFail("no connection opened: \(actions)")
            return (0, [])
        }
        on(.opened(connection: id))
        return (id, server(ServerMessage(setupComplete: EmptyObject()), on: id))
    }

    @discardableResult
    func handleUpdate(on id: Int, _ handle: String = "h1") -> [Action] {
        server(ServerMessage(sessionResumptionUpdate: SessionResumptionUpdate(newHandle: Secret(handle), resumable: true)), on: id)
    }

    func typed(_ text: String) -> ClientMessage { .clientContent(.userText(text)) }

    func mic(_ bytes: Int, _ value: Int16 = 8000) -> Data {
        (0..<(bytes / 2)).map { i in i % 2 == 0 ? value : -value }.withUnsafeBytes { Data($0) }
    }

    func audio(_ pcm: Data) -> ClientMessage { .realtimeInput(.micAudio(pcm)) }

    // MARK: - Connecting

    func testSetupGoesFirstAndInputWaitsForSetupComplete() {
        let start = on(.start)
        XCTAssertEqual(start, [.emit(.connecting(attempt: 0, resuming: false)), .open(connection: 1, newSession: true)])
        on(.text("early bird"))
        on(.audio(mic(640)))
        let open = on(.opened(connection: 1))
        var setup = m.setup
        setup.sessionResumption = SessionResumptionConfig(handle: nil)
        XCTAssertEqual(sent(open), [.setup(setup)], "asking for handles")
        XCTAssertEqual(timer, now + 10, "setupComplete is awaited 10 s")
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: 1)
        XCTAssertEqual(events(live).first, .setupComplete(resumed: false))
        XCTAssertEqual(sent(live, on: 1), [audio(mic(640)), typed("early bird")], "held input first, then the queued turn")
        XCTAssertEqual(events(live).last, .queuedTextSent(ids: [1]))
    }

    func testADropReconnectsWithTheHandleAndSendsTheUnansweredTypedTurnOnce() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        XCTAssertEqual(sent(on(.text("capital of France?")), on: first), [typed("capital of France?")])
        let closed = on(.closed(connection: first, .internalError))
        XCTAssertEqual(events(closed), [.connectionClosed(.internalError), .reconnecting(attempt: 1, delay: 0.1, after: .internalError)])
        XCTAssertTrue(m.connection.isOffline)
        XCTAssertEqual(timer, now + 0.1, "the backoff is the timer")
        let retry = fireTimer()
        XCTAssertEqual(events(retry), [.connecting(attempt: 1, resuming: true)])
        guard let second = opened(retry) else { return XCTFail("\(retry)") }
        let setup = sent(on(.opened(connection: second)))
        guard case .setup(let s)? = setup.first else { return XCTFail("\(setup)") }
        XCTAssertEqual(s.sessionResumption?.handle, Secret("h1"), "resumed with the handle")
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(events(live), [.setupComplete(resumed: true), .turnResent(text: "capital of France?")])
        XCTAssertEqual(sent(live, on: second), [typed("capital of France?")], "no seed on a resumed session")

        // Dropped again before the answer: not sent a third time.
        on(.closed(connection: second, .internalError))
        let (third, again) = goLive(fireTimer())
        XCTAssertEqual(events(again), [.setupComplete(resumed: true)])
        XCTAssertEqual(sent(again, on: third), [])
    }

    func testAnAnsweredTurnIsNotSentAgain() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("hello"))
        server(ServerContent(outputTranscription: Transcription(text: "Hi there")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        on(.closed(connection: first, .internalError))
        let (second, live) = goLive(fireTimer())
        XCTAssertEqual(sent(live, on: second), [])
        XCTAssertFalse(events(live).contains(.turnResent(text: "hello")))
    }

    func testAFreshSessionIsSeededWithTheConversationAndAsksTheUnansweredTurn() {
        let (first, _) = goLive(on(.start))
        on(.text("my name is Ada"))
        server(ServerContent(outputTranscription: Transcription(text: "Hello Ada")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        handleUpdate(on: first)
        on(.text("what is my name"))
        let closed = on(.closed(connection: first, .sessionExpired))
        XCTAssertEqual(events(closed), [
            .connectionClosed(.sessionExpired), .freshSession(.handleRefused(.sessionExpired)),
            .connecting(attempt: 0, resuming: false),
        ])
        let (second, live) = goLive(closed)
        XCTAssertEqual(events(live), [.setupComplete(resumed: false), .turnResent(text: "what is my name")])
        XCTAssertEqual(sent(live, on: second), [
            .clientContent(ClientContent(turns: [Content(role: "user", text: "my name is Ada"), Content(role: "model", text: "Hello Ada")], turnComplete: false)),
            typed("what is my name"),
        ], "the conversation as context, then the question that was never answered")
    }

    func testAPreloadedConversationSeedsAFreshSession() {
        on(.preload([Content(role: "user", text: "earlier question"), Content(role: "model", text: "earlier answer")]))
        let (id, live) = goLive(on(.start))
        XCTAssertEqual(sent(live, on: id), [
            .clientContent(ClientContent(turns: [Content(role: "user", text: "earlier question"), Content(role: "model", text: "earlier answer")], turnComplete: false)),
        ])
    }

    func testAPushToTalkTurnCutByACloseIsSentAgainWithItsAudio() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let chunks = [mic(640, 1000), mic(640, 2000)]
        on(.activityStart)
        for c in chunks { on(.audio(c)) }
        on(.activityEnd)
        XCTAssertEqual(timer, now + 12, "the watchdog waits for the answer")
        on(.closed(connection: first, .internalError))
        let (second, live) = goLive(fireTimer())
        XCTAssertEqual(events(live).last, .turnResent(text: nil))
        XCTAssertEqual(sent(live, on: second), [.realtimeInput(.activityStart)] + chunks.map(audio) + [.realtimeInput(.activityEnd)])
    }

    // MARK: - Holding input

    func testAudioHeldDuringAHandOverKeepsTheNewestWithinTheLimit() {
        machine(limits: .init(heldAudio: 1280))
        let (first, _) = goLive(on(.start))
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        XCTAssertEqual(events(handover).first, .goAway(timeLeft: .zero))
        XCTAssertTrue(handover.contains(.close(connection: first, code: 1000, reason: .handover)), "\(handover)")
        XCTAssertFalse(m.connection.isOffline, "a planned hand-over is not an outage")
        let chunks = [mic(640, 1000), mic(640, 2000), mic(640, 3000)]
        XCTAssertEqual(events(on(.audio(chunks[0]))), [])
        XCTAssertEqual(events(on(.audio(chunks[1]))), [])
        XCTAssertEqual(events(on(.audio(chunks[2]))), [.heldAudioDropped(bytes: 640)], "the oldest goes")
        let (second, live) = goLive(handover)
        XCTAssertEqual(sent(live, on: second), chunks.suffix(2).map(audio))
    }

    func testAudioIsDroppedInALongOutageAndReportedOnce() {
        machine(limits: .init(offlineAudio: 3200))
        let (first, _) = goLive(on(.start))
        on(.closed(connection: first, .dropped()))
        XCTAssertTrue(m.connection.isOffline)
        var reports: [LiveEvent] = []
        for i in 0..<20 { reports += events(on(.audio(mic(640, Int16(100 + i))))) }
        XCTAssertEqual(reports, [.heldAudioDropped(bytes: 3840)], "all held audio dropped at the limit, once")
        let (second, live) = goLive(on(.text("are you back")))
        XCTAssertEqual(sent(live, on: second), [typed("are you back")], "no stale speech, the typed turn kept")
        XCTAssertEqual(sent(on(.audio(mic(640))), on: second), [audio(mic(640))], "live again: audio flows")
    }

    func testNonAudioInputIsHeldThroughAnOutage() {
        machine(limits: .init(offlineAudio: 640))
        let (first, _) = goLive(on(.start))
        on(.closed(connection: first, .dropped()))
        let response = FunctionResponse(id: "c1", name: "clock", response: ["now": "noon"])
        on(.toolResponse([response]))
        for _ in 0..<3 { on(.audio(mic(640))) }
        let (second, live) = goLive(fireTimer())
        XCTAssertEqual(sent(live, on: second), [.toolResponse(ToolResponse(functionResponses: [response]))])
    }

    func testVideoIsOnlySentWhileLive() {
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0])
        on(.start)
        XCTAssertEqual(on(.video(jpeg)), [])
        let (id, _) = goLive([.open(connection: 1, newSession: true)])
        XCTAssertEqual(sent(on(.video(jpeg)), on: id), [.realtimeInput(.video(Blob(mimeType: JPEGHeader.mimeType, data: jpeg)))])
    }

    // MARK: - The text queue

    func testTypedTurnsQueueOfflineAndGoOutOnePerAnswer() {
        machine(limits: .init(queuedText: 2))
        let (first, _) = goLive(on(.start))
        on(.closed(connection: first, .dropped()))
        let one = on(.text("one"))
        XCTAssertEqual(events(one), [.textQueued(id: 1, text: "one", waiting: 1), .connecting(attempt: 1, resuming: false)])
        XCTAssertEqual(m.lastTextID, 1)
        XCTAssertEqual(events(on(.text("two"))), [.textQueued(id: 2, text: "two", waiting: 2)])
        XCTAssertEqual(events(on(.text("three"))), [.textNotQueued(id: 3, limit: 2)])
        let (second, live) = goLive(one)
        XCTAssertEqual(sent(live, on: second), [typed("one")], "one turn per answer")
        XCTAssertEqual(events(live).last, .queuedTextSent(ids: [1]))
        server(ServerContent(outputTranscription: Transcription(text: "First.")), on: second)
        let end = server(ServerContent(turnComplete: true), on: second)
        XCTAssertEqual(sent(end, on: second), [typed("two")])
        XCTAssertEqual(events(end).suffix(2), [.turnComplete(reason: nil), .queuedTextSent(ids: [2])])
    }

    func testAQueuedTurnMakesTheSessionRetryAtOnce() {
        let (first, _) = goLive(on(.start))
        on(.closed(connection: first, .dropped()))
        on(.closed(connection: opened(fireTimer()) ?? 0, .dropped()))  // attempt 2 waits 1 s
        let queued = on(.text("are you there"))
        XCTAssertNotNil(opened(queued), "the user waits: retry now, not after the backoff")
    }

    // MARK: - Activity across a hand-over

    func testPushToTalkHeldThroughAHandOverReopensTheActivity() {
        let (first, _) = goLive(on(.start))
        on(.activityStart)
        on(.audio(mic(640, 1000)))
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        on(.audio(mic(640, 2000)))
        let (second, live) = goLive(handover)
        XCTAssertEqual(sent(live, on: second), [.realtimeInput(.activityStart), audio(mic(640, 2000))], "reopened, then the held audio")
        XCTAssertFalse(events(live).contains(.turnResent(text: nil)))
        XCTAssertEqual(sent(on(.activityEnd), on: second), [.realtimeInput(.activityEnd)])
    }

    func testActivityEndedBeforeTheHandOverIsNotReopened() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.activityStart)
        on(.activityEnd)
        server(ServerContent(outputTranscription: Transcription(text: "Hello.")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        let (second, live) = goLive(handover)
        XCTAssertEqual(sent(live, on: second), [])
    }

    // MARK: - The watchdog

    func testNoReplyIsNudgedOnTheSameConnectionThenResumedOnANewOne() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("hello?"))
        XCTAssertEqual(timer, now + 12)
        let nudge = fireTimer()
        XCTAssertEqual(events(nudge), [.replyStalled(.noReply(seconds: 12), recovery: .nudge)])
        XCTAssertEqual(sent(nudge, on: first), [typed("hello?")], "asked again on the same connection")
        let resume = fireTimer()
        XCTAssertEqual(events(resume).first, .replyStalled(.noReply(seconds: 12), recovery: .resume))
        XCTAssertTrue(resume.contains(.close(connection: first, code: 1000, reason: .networkChanged)), "\(resume)")
        let (second, live) = goLive(resume)
        XCTAssertEqual(events(live), [.setupComplete(resumed: true), .turnResent(text: "hello?")])
        XCTAssertEqual(sent(live, on: second), [typed("hello?")])
    }

    func testAudibleReplyDisarmsTheWatchdogAndGoesToPlayback() {
        let (first, _) = goLive(on(.start))
        on(.text("hello"))
        XCTAssertNotNil(timer)
        let reply = mic(4800)
        let actions = server(ServerContent(modelTurn: Content(role: "model", parts: [Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: reply))])), on: first)
        XCTAssertEqual(actions.last, .cancelTimer)
        XCTAssertTrue(actions.contains(.playback(.play(reply))))
        XCTAssertEqual(m.pending.map(\.replying), [true], "being answered; kept until the reply ends")
        server(ServerContent(turnComplete: true), on: first)
        XCTAssertEqual(m.pending, [], "answered")
    }

    func testSilentReplyAudioIsAStall() {
        let (first, _) = goLive(on(.start))
        on(.text("hello"))
        let silence = Content(role: "model", parts: [Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: mic(48_000, 1)))])
        var stalls: [LiveEvent] = []
        for _ in 0..<4 { stalls += events(server(ServerContent(modelTurn: silence), on: first)).filter { if case .replyStalled = $0 { true } else { false } } }
        XCTAssertEqual(stalls.count, 1, "\(stalls)")
        guard case .replyStalled(.quietReply, .nudge)? = stalls.first else { return XCTFail("\(stalls)") }
    }

    func testAToolResponseRearmsTheWatchdog() {
        let (first, _) = goLive(on(.start))
        on(.text("what time is it"))
        let call = server(ServerMessage(toolCall: ToolCall(functionCalls: [FunctionCall(id: "c1", name: "clock")])), on: first)
        XCTAssertEqual(events(call), [.toolCall([FunctionCall(id: "c1", name: "clock")])])
        XCTAssertNil(timer, "the tool runs: no reply is due")
        now += 30
        let response = on(.toolResponse([FunctionResponse(id: "c1", name: "clock", response: ["now": "noon"])]))
        XCTAssertEqual(response.last, .setTimer(at: now + 12), "its answer is due now")
        let stall = fireTimer()
        XCTAssertEqual(events(stall).first, .replyStalled(.noReply(seconds: 12), recovery: .resume), "nothing to ask again: resume")
        XCTAssertTrue(stall.contains(.close(connection: first, code: 1000, reason: .networkChanged)), "\(stall)")
    }

    func testAnInterruptionFlushesPlaybackBeforeTheAudioInTheSameMessage() {
        let (first, _) = goLive(on(.start))
        let pcm = mic(480)
        let actions = server(ServerContent(
            modelTurn: Content(role: "model", parts: [Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: pcm))]),
            interrupted: true), on: first)
        let output = actions.filter { if case .playback = $0 { true } else if case .emit = $0 { true } else { false } }
        XCTAssertEqual(output.prefix(3), [.playback(.flush), .emit(.interrupted), .playback(.play(pcm))])
    }

    // MARK: - Turn ends

    func testATurnEndIsReportedOnceWhateverSaysItEnded() {
        machine(model: "gemini-3.1-flash-live-preview")
        let (id, _) = goLive(on(.start))
        func turnEnds(_ content: ServerContent) -> Int {
            events(server(content, on: id)).filter { if case .turnComplete = $0 { true } else { false } }.count
        }
        server(ServerContent(modelTurn: Content(role: "model", text: "One.")), on: id)
        XCTAssertEqual(turnEnds(ServerContent(generationComplete: true)), 1, "3.1 may end on generationComplete alone")
        XCTAssertEqual(turnEnds(ServerContent(turnComplete: true)), 0, "already reported")
        server(ServerContent(modelTurn: Content(role: "model", text: "Two.")), on: id)
        XCTAssertEqual(turnEnds(ServerContent(waitingForInput: true)), 1)
        XCTAssertEqual(turnEnds(ServerContent(turnComplete: true, turnCompleteReason: "x")), 0)
        server(ServerContent(modelTurn: Content(role: "model", text: "Three.")), on: id)
        let end = server(ServerContent(turnComplete: true, turnCompleteReason: "NEED_MORE_INPUT"), on: id)
        XCTAssertEqual(events(end), [.turnComplete(reason: "NEED_MORE_INPUT")])
        XCTAssertTrue(end.contains(.playback(.turnComplete)))
    }

    func testOnModelsThatSendTurnCompleteGenerationCompleteIsNotTheEnd() {
        let (id, _) = goLive(on(.start))
        XCTAssertEqual(events(server(ServerContent(generationComplete: true), on: id)), [.generationComplete])
        XCTAssertEqual(events(server(ServerContent(turnComplete: true), on: id)), [.turnComplete(reason: nil)])
    }

    // MARK: - Hand-overs and closing

    func testGoAwayHandsOverAtOnceWhenTheHandleCoversTheLastTurn() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        now += 1
        let goAway = server(ServerMessage(goAway: GoAway(timeLeft: "50s")), on: first)
        XCTAssertEqual(goAway, [
            .emit(.goAway(timeLeft: .seconds(50))), .close(connection: first, code: 1000, reason: .handover),
            .emit(.connecting(attempt: 0, resuming: true)), .open(connection: 2, newSession: false),
        ])
        now += 0.25
        let (_, live) = goLive(goAway)
        XCTAssertTrue(live.contains(.log(.info, "hand-over to a new connection took 250 ms (resumed: true)")), "\(live)")
        XCTAssertEqual(on(.closed(connection: first, .normal)), [], "the old connection's close is not news")
    }

    func testGoAwayMidTurnWaitsForTheTurnToEnd() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        server(ServerContent(modelTurn: Content(role: "model", text: "Once upon")), on: first)
        let goAway = server(ServerMessage(goAway: GoAway(timeLeft: "30s")), on: first)
        XCTAssertNil(opened(goAway))
        XCTAssertEqual(timer, now + 29, "at the latest a second before the server closes")
        server(ServerContent(turnComplete: true), on: first)
        XCTAssertNotNil(opened(handleUpdate(on: first, "h2")), "the next handle covers the turn: go")
    }

    func testCloseEndsTheSessionOnce() {
        let (id, _) = goLive(on(.start))
        on(.text("hello"))
        XCTAssertNotNil(timer)
        let close = on(.close)
        XCTAssertEqual(close, [.close(connection: id, code: 1000, reason: .clientClosed), .emit(.closed), .cancelTimer])
        XCTAssertEqual(on(.close), [], "a second close does nothing")
        XCTAssertEqual(on(.closed(connection: id, .normal)), [], "nor does the connection's own close")
        XCTAssertEqual(on(.text("too late")), [])
        XCTAssertEqual(on(.audio(mic(640))), [])
        XCTAssertEqual(on(.start), [], "closed for good")
    }

    func testCloseDuringAHandOverClosesTheOpeningConnection() {
        let (first, _) = goLive(on(.start))
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        guard let second = opened(handover) else { return XCTFail("\(handover)") }
        XCTAssertEqual(on(.close), [.close(connection: second, code: 1000, reason: .clientClosed), .emit(.closed)])
        XCTAssertEqual(on(.opened(connection: second)), [])
        XCTAssertEqual(on(.closed(connection: first, .normal)), [])
    }

    func testFramesFromAReplacedConnectionAreIgnored() {
        let (first, _) = goLive(on(.start))
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        goLive(handover)
        XCTAssertEqual(server(ServerContent(outputTranscription: Transcription(text: "late")), on: first), [])
        XCTAssertEqual(on(.malformedFrame("bad", connection: first)), [])
    }

    func testAFatalCloseFailsWithoutRetrying() {
        let (id, _) = goLive(on(.start))
        let closed = on(.closed(connection: id, .invalidAPIKey))
        XCTAssertEqual(events(closed), [.connectionClosed(.invalidAPIKey), .failed(.invalidAPIKey)])
        XCTAssertNil(timer)
    }

    // MARK: - Reconfiguring and the network

    func testReconfigureMovesToANewConnectionWithTheNewSetup() {
        let (first, _) = goLive(on(.start))
        var setup = m.setup
        setup.generationConfig = GenerationConfig(speechConfig: SpeechConfig(voiceName: "Kore"))
        let handover = on(.reconfigure(setup, requireHandle: false))
        XCTAssertTrue(handover.contains(.close(connection: first, code: 1000, reason: .handover)), "no handle: at once")
        guard let second = opened(handover) else { return XCTFail("\(handover)") }
        guard case .setup(let sent)? = sent(on(.opened(connection: second))).first else { return XCTFail() }
        XCTAssertEqual(sent.generationConfig?.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName, "Kore")
    }

    func testAResumeFromSuspendReplacesTheConnectionAndARouteChangeOnlyHurriesAnOfflineOne() {
        let (first, _) = goLive(on(.start))
        XCTAssertEqual(on(.networkChanged(.routeChanged)), [], "live: a new route is no reason to reconnect")
        let resumed = on(.networkChanged(.resumedFromSuspend(seconds: 60)))
        XCTAssertTrue(resumed.contains(.close(connection: first, code: 1000, reason: .networkChanged)), "\(resumed)")
        guard let second = opened(resumed) else { return XCTFail("\(resumed)") }
        on(.closed(connection: second, .dropped()))
        XCTAssertNotNil(opened(on(.networkChanged(.routeChanged))), "offline: retry at once")
    }

    /// The network watch reads the session's one `TimeSource`: a test moves both of its clocks by hand.
    func testTheNetworkWatchSeesASuspendOnTheManualClock() {
        let clock = ManualTime()
        let time = clock.source
        var watch = NetworkWatch()
        func look() -> NetworkWatch.Change? {
            watch.observe(now: time.now(), throughSuspend: time.nowThroughSuspend(), route: "wlan0 1")
        }
        XCTAssertNil(look())
        clock.advance(2)
        XCTAssertNil(look(), "awake: both clocks move together")
        clock.suspend(90)
        clock.advance(2)
        XCTAssertEqual(look(), .resumedFromSuspend(seconds: 90))
    }

    func testARestoredHandleIsUsedForTheFirstConnection() {
        on(.restoreHandle(Secret("saved"), age: 60))
        XCTAssertEqual(m.resumptionHandle(now: now)?.age, 60)
        XCTAssertTrue(m.hasResumptionHandle(now: now))
        XCTAssertEqual(events(on(.start)), [.connecting(attempt: 0, resuming: true)])
    }
}
