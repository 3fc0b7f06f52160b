import Foundation
import XCTest

@testable import Live

/// Changing the instruction, tools and voice mid-conversation (issue 23), on the hand-moved clock: by
/// `contextUpdate` where the model takes it, by a resume with the changed setup elsewhere; nothing the user
/// said or typed is lost on the way.
extension SessionMachineTests {
    static let clock = Tool(functionDeclarations: [FunctionDeclaration(name: "get_current_time")])
    static let files = Tool(functionDeclarations: [FunctionDeclaration(name: "read_file")])

    /// A machine for `model` whose setup has an instruction and the clock tool, as parley's would.
    func contextMachine(model: String = LiveModel.defaultID) {
        m = SessionMachine(
            setup: Setup(model: "models/\(model)", systemInstruction: Content(text: "Be brief."), tools: [Self.clock]),
            policy: Self.policy)
    }

    func setupSent(_ actions: [Action]) -> Setup? {
        sent(actions).lazy.compactMap { if case .setup(let s) = $0 { s } else { nil } }.first
    }

    func pirate() -> ContextChange {
        ContextChange(instruction: #"Begin every reply with "Arr!""#, tools: [Self.clock, Self.files])
    }

    // MARK: - contextUpdate

    func testOnAModelThatTakesItTheChangeGoesOutAsContextUpdateOnTheLiveConnection() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let change = on(.changeContext(pirate(), duringReply: false))
        XCTAssertEqual(sent(change), [.contextUpdate(ContextUpdate(
            systemInstruction: Content(text: #"Begin every reply with "Arr!""#), tools: [Self.clock, Self.files]))])
        XCTAssertEqual(events(change), [.contextChanged(pirate(), via: .contextUpdate)])
        XCTAssertFalse(change.contains { if case .close = $0 { true } else { false } }, "no reconnect")
        XCTAssertEqual(m.setup.systemInstruction?.text, #"Begin every reply with "Arr!""#)

        // The next connection (a goAway hand-over) resumes under the changed setup and needs no update.
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        guard let second = opened(handover) else { return XCTFail("\(handover)") }
        let setup = setupSent(on(.opened(connection: second)))
        XCTAssertEqual(setup?.systemInstruction?.text, #"Begin every reply with "Arr!""#)
        XCTAssertEqual(setup?.tools, [Self.clock, Self.files])
        XCTAssertEqual(setup?.sessionResumption?.handle, Secret("h1"))
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(sent(live), [], "the setup carried the change")
        XCTAssertEqual(events(live), [.setupComplete(resumed: true)], "reported once, when it took effect")
    }

    func testContextUpdateCarriesOnlyWhatChangedAndSaysNoneExplicitly() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        XCTAssertEqual(sent(on(.changeContext(ContextChange(tools: [Self.files]), duringReply: false)), on: first),
                       [.contextUpdate(ContextUpdate(tools: [Self.files]))])
        XCTAssertEqual(sent(on(.changeContext(ContextChange(instruction: "", tools: []), duringReply: false)), on: first),
                       [.contextUpdate(ContextUpdate(systemInstruction: Content(text: ""), tools: []))],
                       "removed: an empty instruction and an empty tool list")
        XCTAssertNil(m.setup.systemInstruction)
        XCTAssertNil(m.setup.tools)
    }

    func testAChangeThatChangesNothingOrComesAfterTheEndIsRefused() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        let same = ContextChange(instruction: "Be brief.", tools: [Self.clock])
        let unchanged = on(.changeContext(same, duringReply: false))
        XCTAssertEqual(sent(unchanged), [])
        XCTAssertEqual(events(unchanged), [.contextRefused(same, .unchanged)])
        on(.closed(connection: first, .invalidAPIKey))
        XCTAssertEqual(events(on(.changeContext(pirate(), duringReply: false))), [.contextRefused(pirate(), .sessionEnded)])
        XCTAssertEqual(m.setup.systemInstruction?.text, "Be brief.", "the conversation goes on as it was")
    }

    func testAnInstructionOverTheModelsWindowIsRefusedBeforeSending() {
        contextMachine(model: "gemini-3.1-flash-live-preview")  // 32,768 tokens
        let (first, _) = goLive(on(.start))
        let huge = ContextChange(instruction: String(repeating: "word ", count: 26_215))  // 131,075 bytes
        let refused = on(.changeContext(huge, duringReply: false))
        XCTAssertEqual(events(refused), [.contextRefused(huge, .instructionTooLarge(estimatedTokens: 32_769, limit: 32_768))])
        XCTAssertEqual(sent(refused), [])
        XCTAssertNil(opened(refused))
        XCTAssertEqual(m.setup.systemInstruction?.text, "Be brief.")
        XCTAssertEqual(m.connection.liveID, first, "the conversation goes on as it was")
    }

    func testAChangeMadeAfterTheSetupWentOutIsCaughtUpBeforeAnythingElse() {
        contextMachine()
        on(.start)
        on(.opened(connection: 1))
        on(.text("early question"))
        XCTAssertEqual(events(on(.changeContext(pirate(), duringReply: false))), [], "not yet in effect")
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: 1)
        XCTAssertEqual(sent(live, on: 1), [
            .contextUpdate(ContextUpdate(systemInstruction: Content(text: #"Begin every reply with "Arr!""#), tools: [Self.clock, Self.files])),
            typed("early question"),
        ], "the update first, so the question is answered under it")
        XCTAssertEqual(events(live).prefix(2), [.setupComplete(resumed: false), .contextChanged(pirate(), via: .contextUpdate)])
    }

    func testAChangeWhileOfflineRidesTheNextConnectionWithoutHurryingIt() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.closed(connection: first, .internalError))
        let offline = on(.changeContext(pirate(), duringReply: false))
        XCTAssertEqual(sent(offline), [])
        XCTAssertNil(opened(offline), "the backoff is not cut short")
        let retry = fireTimer()
        guard let second = opened(retry) else { return XCTFail("\(retry)") }
        XCTAssertEqual(setupSent(on(.opened(connection: second)))?.tools, [Self.clock, Self.files])
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(events(live), [.setupComplete(resumed: true), .contextChanged(pirate(), via: .resume)])
    }

    // MARK: - The resume fallback

    func testWithoutContextUpdateTheChangeResumesOnANewConnectionAndLosesNoInput() {
        contextMachine(model: "gemini-2.5-flash-native-audio-preview-12-2025")
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("first question"))
        let waiting = on(.changeContext(pirate(), duringReply: true))
        XCTAssertEqual(sent(waiting), [], "no contextUpdate for this model")
        XCTAssertNil(opened(waiting), "the turn under way is not cut")
        server(ServerContent(outputTranscription: Transcription(text: "An answer")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        let handover = handleUpdate(on: first, "h2")
        XCTAssertTrue(handover.contains(.close(connection: first, code: 1000, reason: .handover)), "\(handover)")
        guard let second = opened(handover) else { return XCTFail("\(handover)") }

        // Said and typed while the new connection opens: held, then sent in order.
        let chunks = [mic(640, 1000), mic(640, 2000)]
        for c in chunks { on(.audio(c)) }
        on(.text("second question"))
        let setup = setupSent(on(.opened(connection: second)))
        XCTAssertEqual(setup?.systemInstruction?.text, #"Begin every reply with "Arr!""#)
        XCTAssertEqual(setup?.tools, [Self.clock, Self.files])
        XCTAssertEqual(setup?.sessionResumption?.handle, Secret("h2"), "resumed: the conversation is kept")
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(sent(live, on: second), chunks.map(audio) + [typed("second question")])
        XCTAssertEqual(events(live).prefix(2), [.setupComplete(resumed: true), .contextChanged(pirate(), via: .resume)])
    }

    func testAnUnansweredTurnIsAskedAgainUnderTheNewContextWhenTheResumeCannotWait() {
        contextMachine(model: "gemini-3.1-flash-live-preview")
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("still waiting"))
        on(.changeContext(pirate(), duringReply: true))
        // No answer: the watchdog nudges the turn on the old connection (12 s), then the hand-over's wait for
        // the end of the turn runs out (20 s) and the change goes ahead.
        let nudge = fireTimer()
        XCTAssertEqual(sent(nudge, on: first), [.realtimeInput(.text("still waiting"))])
        let handover = fireTimer()
        XCTAssertEqual(now, 120)
        guard let second = opened(handover) else { return XCTFail("\(handover)") }
        on(.opened(connection: second))
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(sent(live, on: second), [.realtimeInput(.text("still waiting"))], "3.1 takes typed text as realtime input")
        XCTAssertTrue(events(live).contains(.turnResent(text: "still waiting")))
        XCTAssertTrue(events(live).contains(.contextChanged(pirate(), via: .resume)))
    }

    func testWithoutAHandleTheChangeStartsANewSessionSeededWithTheConversation() {
        contextMachine(model: "gemini-3.1-flash-live-preview")
        let (first, _) = goLive(on(.start))
        on(.text("my name is Ada"))
        server(ServerContent(outputTranscription: Transcription(text: "Hello Ada")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        let handover = on(.changeContext(pirate(), duringReply: false))
        guard let second = opened(handover) else { return XCTFail("no handle to wait for: at once \(handover)") }
        XCTAssertNil(setupSent(on(.opened(connection: second)))?.sessionResumption?.handle)
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: second)
        XCTAssertEqual(sent(live, on: second), [.clientContent(ClientContent(
            turns: [Content(role: "user", text: "my name is Ada"), Content(role: "model", text: "Hello Ada")], turnComplete: false))])
        XCTAssertEqual(events(live), [.setupComplete(resumed: false), .contextChanged(pirate(), via: .newSession)])
    }

    func testAVoiceInTheChangeTakesAResumeEvenWhereContextUpdateIsTaken() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let change = ContextChange(instruction: "Speak like a pirate.", voice: "Kore")
        let handover = on(.changeContext(change, duringReply: false))
        XCTAssertFalse(sent(handover).contains { if case .contextUpdate = $0 { true } else { false } })
        guard let second = opened(handover) else { return XCTFail("\(handover)") }
        let setup = setupSent(on(.opened(connection: second)))
        XCTAssertEqual(setup?.voiceName, "Kore")
        XCTAssertEqual(setup?.systemInstruction?.text, "Speak like a pirate.")
        XCTAssertEqual(setup?.tools, [Self.clock], "tools not named stay")
        XCTAssertEqual(events(server(ServerMessage(setupComplete: EmptyObject()), on: second)),
                       [.setupComplete(resumed: true), .contextChanged(change, via: .resume)])
    }

    func testAContextUpdateDuringAPendingVoiceSwitchGoesOutNowAndTheSwitchCarriesBoth() {
        contextMachine()
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("a long question"))
        var kore = m.setup
        kore.generationConfig = GenerationConfig(speechConfig: SpeechConfig(voiceName: "Kore"))
        XCTAssertNil(opened(on(.reconfigure(kore, requireHandle: true))), "the voice waits for the turn to end")
        let update = on(.changeContext(ContextChange(tools: [Self.files]), duringReply: true))
        XCTAssertEqual(sent(update, on: first), [.contextUpdate(ContextUpdate(tools: [Self.files]))])
        server(ServerContent(outputTranscription: Transcription(text: "An answer")), on: first)
        server(ServerContent(turnComplete: true), on: first)
        guard let second = opened(handleUpdate(on: first, "h2")) else { return XCTFail("no hand-over") }
        let setup = setupSent(on(.opened(connection: second)))
        XCTAssertEqual(setup?.voiceName, "Kore")
        XCTAssertEqual(setup?.tools, [Self.files])
        XCTAssertEqual(sent(server(ServerMessage(setupComplete: EmptyObject()), on: second)), [], "nothing to catch up")
    }

    func testAVoiceChosenWhileTheSetupIsInFlightIsNotLost() {
        contextMachine(model: "gemini-2.5-flash-native-audio-preview-12-2025")
        on(.start)
        on(.opened(connection: 1))
        handleUpdate(on: 1)
        let change = ContextChange(voice: "Kore")
        on(.changeContext(change, duringReply: false))
        let live = server(ServerMessage(setupComplete: EmptyObject()), on: 1)
        XCTAssertFalse(events(live).contains(.contextChanged(change, via: .newSession)), "this connection has the old voice")
        guard let second = opened(live) else { return XCTFail("the connection with the old setup is replaced: \(live)") }
        XCTAssertEqual(setupSent(on(.opened(connection: second)))?.voiceName, "Kore")
        XCTAssertEqual(events(server(ServerMessage(setupComplete: EmptyObject()), on: second)),
                       [.setupComplete(resumed: true), .contextChanged(change, via: .resume)])
    }

    func testOnVertexAIContextUpdateIsNotSentWhileUnconfirmed() {
        m = SessionMachine(setup: Setup(model: "projects/p/locations/global/publishers/google/models/\(LiveModel.defaultID)"), policy: Self.policy)
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let handover = on(.changeContext(pirate(), duringReply: false))
        XCTAssertTrue(handover.contains(.close(connection: first, code: 1000, reason: .handover)), "\(handover)")
        XCTAssertEqual(sent(handover), [])
    }

    func testAChangeStillWaitingWhenTheSessionFailsIsRefused() {
        contextMachine(model: "gemini-3.1-flash-live-preview")
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("a question"))
        on(.changeContext(pirate(), duringReply: true))
        let failed = on(.closed(connection: first, .invalidAPIKey))
        XCTAssertTrue(events(failed).contains(.contextRefused(pirate(), .sessionEnded)), "\(events(failed))")
    }
}
