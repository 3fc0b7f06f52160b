import Foundation
import Live
import LiveSimulator
import ParleyLock
import XCTest

/// The client against the simulator over a real loopback WebSocket.
final class SessionIntegrationTests: LiveSessionTestCase {
    // MARK: -

    func testTextTurnStreamsTranscriptsAudioAndCompletes() async throws {
        let url = try await startSimulator(quickTurns)
        let (s, audio) = session(url, setup())
        s.start()
        let live = await waitLive(s)
        XCTAssertEqual(live.last, .setupComplete(resumed: false))
        let events = await turn(s) { s.sendText("hello there") }
        XCTAssertTrue(text(events, input: true).contains("hello there"), "\(events)")
        XCTAssertFalse(text(events, input: false).isEmpty)
        XCTAssertTrue(events.contains(.generationComplete))
        XCTAssertTrue(events.contains { if case .usage = $0 { true } else { false } })
        XCTAssertGreaterThan(audio.bytes, 24_000, "at least half a second of 24 kHz reply audio")
        let after = await collect(s, timeout: 3) { e, _ in if case .resumptionUpdate(true) = e { true } else { false } }
        XCTAssertEqual(after.last, .resumptionUpdate(resumable: true))
        XCTAssertTrue(s.hasResumptionHandle)
        s.close()
    }

    func testAudioTurnWithPushToTalkGetsTheScriptedTranscript() async throws {
        var o = quickTurns
        o.audioTranscripts = ["What is the capital of France?"]
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup(manual: true))
        s.start()
        _ = await waitLive(s)
        let events = await turn(s) {
            s.activityStart()
            for c in tone(ms: 1000) { s.sendAudio(c) }
            s.activityEnd()
        }
        XCTAssertEqual(text(events, input: true).trimmingCharacters(in: .whitespaces), "What is the capital of France?")
        XCTAssertFalse(text(events, input: false).isEmpty)
        XCTAssertEqual(simulator.stats().audioBytesReceived, 32_000)
        s.close()
    }

    func testToolCallIsAnsweredByID() async throws {
        let url = try await startSimulator(quickTurns)
        let (s, _) = session(url, setup(tools: ["get_current_time"]))
        s.start()
        _ = await waitLive(s)
        s.sendText("what time is it")
        let call = await collect(s) { e, _ in if case .toolCall = e { true } else { false } }
        guard case .toolCall(let calls)? = call.last, let first = calls.first else { return XCTFail("\(call)") }
        XCTAssertEqual(first.name, "get_current_time")
        let events = await turn(s) {
            s.sendToolResponse([FunctionResponse(id: first.id, name: first.name, response: ["local": "half past four"])])
        }
        XCTAssertTrue(text(events, input: false).contains("half past four"), text(events, input: false))
        XCTAssertEqual(simulator.stats().toolResponsesReceived, [first.id])
        s.close()
    }

    func testToolCallIsCancelledWhenTheUserSpeaks() async throws {
        let url = try await startSimulator()
        let (s, _) = session(url, setup(manual: true, tools: ["get_current_time"]))
        s.start()
        _ = await waitLive(s)
        s.sendText("what time is it")
        let call = await collect(s) { e, _ in if case .toolCall = e { true } else { false } }
        guard case .toolCall(let calls)? = call.last, let first = calls.first else { return XCTFail("\(call)") }
        s.activityStart()
        let events = await collect(s) { e, _ in if case .toolCallCancellation = e { true } else { false } }
        XCTAssertEqual(events.last, .toolCallCancellation(ids: [first.id]))
        s.close()
    }

    func testBargeInInterruptsThenCompletesTheTurn() async throws {
        var o = SimulatorOptions()
        o.audioSpeedup = 1  // keep the model "speaking" long enough to talk over it
        let url = try await startSimulator(o)
        let (s, audio) = session(url, setup())
        s.start()
        _ = await waitLive(s)
        s.sendText("tell me a long story about the sea")
        _ = await collect(s) { e, _ in if case .outputTranscription = e { true } else { false } }
        for c in tone(ms: 600, amplitude: 12000) { s.sendAudio(c) }
        let events = await collect(s) { e, _ in if case .turnComplete = e { true } else { false } }
        guard let i = events.firstIndex(of: .interrupted) else { return XCTFail("no interrupted: \(events)") }
        XCTAssertTrue(events[i...].contains { if case .turnComplete = $0 { true } else { false } }, "interrupted then turnComplete")
        XCTAssertFalse(events.contains(.generationComplete), "no generationComplete for an interrupted turn")
        XCTAssertTrue(audio.flushes > 0, "playback was flushed from the receive path")
        s.close()
    }

    func testWrongKeyIsFatalWithTheServersReason() async throws {
        var o = SimulatorOptions()
        o.apiKey = "right-key"
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup(), credential: Credential("wrong-key"))
        s.start()
        let events = await waitLive(s)
        guard case .failed(let reason)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(reason.code, 1007)
        XCTAssertEqual(reason.reason, "API key not valid. Please pass a valid API key.")
        XCTAssertTrue(reason.isFatal)
        XCTAssertFalse(events.contains { if case .reconnecting = $0 { true } else { false } }, "1007 never retries")
        XCTAssertFalse(reason.description.contains("wrong-key"), "the key never reaches a message")
        s.close()
    }

    func testRightKeyIsAccepted() async throws {
        var o = SimulatorOptions()
        o.apiKey = "right-key"
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup(), credential: Credential("right-key"))
        s.start()
        let events = await waitLive(s)
        XCTAssertEqual(events.last, .setupComplete(resumed: false))
        s.close()
    }

    func testWrongModelIs1008() async throws {
        let url = try await startSimulator()
        var bad = setup()
        bad.model = "models/gemini-nonexistent"
        let (s, _) = session(url, bad)
        s.start()
        let events = await waitLive(s)
        guard case .failed(let reason)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(reason.code, 1008)
        XCTAssertTrue(reason.reason.contains("models/gemini-nonexistent is not found"), reason.reason)
        s.close()
    }

    func testGoAwayResumesOnANewConnectionWithoutLosingMicAudio() async throws {
        var o = quickTurns
        o.goAwayAfter = .milliseconds(600)
        o.goAwayTimeLeft = .seconds(2)
        o.resumptionUpdateAfterSetup = true
        o.audioTranscripts = ["one long sentence"]
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup(manual: true))
        s.start()
        _ = await waitLive(s)
        // Talk for 3 s at real-time pace, straight through the hand-over.
        s.activityStart()
        let chunks = tone(ms: 3000)
        let sender = Task {
            for c in chunks {
                s.sendAudio(c)
                try? await Task.sleep(for: .milliseconds(20))
            }
            s.activityEnd()
        }
        let events = await collect(s, timeout: 30) { e, all in
            if case .turnComplete = e { return all.contains(.setupComplete(resumed: true)) }
            if case .failed = e { return true }
            return false
        }
        await sender.value
        XCTAssertTrue(events.contains { if case .goAway = $0 { true } else { false } }, "\(events)")
        XCTAssertTrue(events.contains(.setupComplete(resumed: true)), "resumed on a new connection: \(events)")
        let stats = simulator.stats()
        XCTAssertGreaterThanOrEqual(stats.connectionsAccepted, 2)
        XCTAssertEqual(stats.setups.last?.resumed, true)
        XCTAssertEqual(stats.sessions.count, 1, "one conversation across both connections")
        XCTAssertEqual(stats.sessions.first?.audioBytesReceived, chunks.reduce(0) { $0 + $1.count }, "no mic audio lost")
        s.close()
    }

    func testAbruptDropReconnectsWithBackoffAndResumes() async throws {
        var o = quickTurns
        o.dropAfter = .milliseconds(300)
        o.resumptionUpdateAfterSetup = true
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup())
        s.start()
        let events = await collect(s) { e, all in
            if case .setupComplete = e { return all.filter { if case .setupComplete = $0 { true } else { false } }.count == 2 }
            if case .failed = e { return true }
            return false
        }
        guard let r = events.first(where: { if case .reconnecting = $0 { true } else { false } }),
            case .reconnecting(let attempt, let delay, let after) = r
        else { return XCTFail("\(events)") }
        XCTAssertEqual(attempt, 1)
        XCTAssertEqual(delay, 0.1, accuracy: 0.021)
        XCTAssertEqual(after.code, 1006)
        XCTAssertEqual(events.last, .setupComplete(resumed: true))
        // And the conversation goes on.
        let turnEvents = await turn(s) { s.sendText("still there?") }
        XCTAssertTrue(turnEvents.contains { if case .turnComplete = $0 { true } else { false } })
        s.close()
    }

    func testMalformedServerFrameIsSurvived() async throws {
        var o = quickTurns
        o.malformedFrameAfterSetup = true
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup())
        s.start()
        let events = await collect(s) { e, _ in if case .protocolError = e { true } else { false } }
        XCTAssertTrue(events.contains { if case .protocolError = $0 { true } else { false } }, "\(events)")
        let turnEvents = await turn(s) { s.sendText("are you ok") }
        XCTAssertTrue(turnEvents.contains { if case .turnComplete = $0 { true } else { false } })
        s.close()
    }

    func testTextFramesAreAcceptedToo() async throws {
        var o = quickTurns
        o.sendTextFrames = true
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup())
        s.start()
        _ = await waitLive(s)
        let events = await turn(s) { s.sendText("hi") }
        XCTAssertTrue(events.contains { if case .turnComplete = $0 { true } else { false } })
        s.close()
    }

    func testInputSentBeforeSetupCompleteIsHeldThenSent() async throws {
        let url = try await startSimulator(quickTurns)
        let (s, _) = session(url, setup())
        s.start()
        s.sendText("early bird")  // before setupComplete: held, never sent ahead of setup
        let events = await collect(s) { e, _ in if case .turnComplete = e { true } else { false } }
        XCTAssertTrue(text(events, input: true).contains("early bird"))
        s.close()
    }

    func testUnreachableServerFailsWithAClearReason() async throws {
        let (s, _) = session("ws://127.0.0.1:1/ws", setup(), reconnects: false)
        s.start()
        let events = await waitLive(s)
        guard case .failed(let reason)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(reason.code, 1006)
        XCTAssertTrue(reason.reason.contains("127.0.0.1:1"), reason.reason)
        s.close()
    }
}

final class EventBox: Sendable {
    let events = Locked<[LiveEvent]>([])
}

/// Records what the session hands to playback.
final class Audio: Sendable {
    private let state = Locked<(bytes: Int, flushes: Int)>((0, 0))
    func handle(_ c: PlaybackCommand) {
        state.withLock { s in
            switch c {
            case .play(let d): s.bytes += d.count
            case .flush: s.flushes += 1
            case .turnComplete: break
            }
        }
    }
    var bytes: Int { state.withLock { $0.bytes } }
    var flushes: Int { state.withLock { $0.flushes } }
}

/// What 3.x models send, read by the session: thoughts apart from the reply, typed text on 3.1, turns that end
/// without `turnComplete`.
final class SessionModelTests: XCTestCase {
    var simulator: LiveSimulator?

    override func tearDown() async throws {
        try? await simulator?.stop()
        simulator = nil
    }

    func run(_ model: String, options: SimulatorOptions, turns: [String]) async throws -> [LiveEvent] {
        let sim = LiveSimulator(options: options)
        _ = try await sim.start()
        simulator = sim
        var policy = ConnectionMachine.Policy()
        policy.reconnects = false
        let session = LiveSession(configuration: LiveConfiguration(
            endpoint: sim.url, credential: .none,
            setup: Setup(
                model: LiveModel.resourceName(model), generationConfig: GenerationConfig(speechConfig: SpeechConfig(voiceName: "Puck")),
                outputAudioTranscription: EmptyObject(), sessionResumption: SessionResumptionConfig()),
            policy: policy))
        var events: [LiveEvent] = []
        var pending = turns
        session.start()
        let deadline = ContinuousClock.now + .seconds(30)
        for await e in session.events {
            events.append(e)
            switch e {
            case .setupComplete, .turnComplete:
                if pending.isEmpty { session.close() } else { session.sendText(pending.removeFirst()) }
            case .failed: session.close()
            default: break
            }
            if ContinuousClock.now > deadline { session.close() }
        }
        return events
    }

    func testThoughtsAreNotTheReply() async throws {
        let events = try await run("gemini-3.8-live", options: SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false), turns: ["hello"])
        let thoughts = events.compactMap { if case .thought(let t) = $0 { t } else { nil } }
        XCTAssertEqual(thoughts.count, 1)
        XCTAssertFalse(events.contains { if case .modelText = $0 { true } else { false } }, "no thought passes as reply text")
        var reply = TranscriptText()
        for case .outputTranscription(let t, _) in events { reply.append(t) }
        XCTAssertEqual(reply.text, "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
    }

    func testOn31TypedTextGoesAsRealtimeTextAndATurnEndsOnGenerationComplete() async throws {
        var options = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)
        options.omitTurnComplete = true
        let events = try await run("gemini-3.1-flash-live-preview", options: options, turns: ["hello", "second"])
        XCTAssertFalse(events.contains { if case .failed = $0 { true } else { false } }, "\(events.filter { if case .failed = $0 { true } else { false } })")
        let ends = events.filter { if case .turnComplete = $0 { true } else { false } }
        XCTAssertEqual(ends.count, 2, "each turn ends once, on generationComplete")
        XCTAssertEqual(simulator?.stats().userTurns, ["hello", "second"])
    }
}
