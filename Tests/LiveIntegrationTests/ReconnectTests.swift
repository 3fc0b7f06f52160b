import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

/// Closes of every class and outages, on loopback: nothing the user asked is lost or answered twice.
final class ReconnectTests: LiveSessionTestCase {
    /// Short numbers so real-socket outages take seconds, not minutes.
    var quick: ConnectionMachine.Policy {
        var p = ConnectionMachine.Policy()
        p.backoff = [0.05, 0.1, 0.2]
        p.backoffCap = 0.3
        return p
    }

    func options(_ faults: SimulatorFaults) -> SimulatorOptions {
        var o = quickTurns
        o.resumptionUpdateAfterSetup = true
        o.faults = faults
        return o
    }

    func answered(_ events: [LiveEvent]) -> Int {
        events.filter { if case .turnComplete = $0 { true } else { false } }.count
    }

    func testQuestionTypedJustBeforeA1011IsAnsweredAfterReconnectOnce() async throws {
        let url = try await startSimulator(options(SimulatorFaults(closeOnTurn: (0, .internalError, 1))))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        let events = await turn(s) { s.sendText("what is the capital of France") }
        XCTAssertTrue(events.contains(.connectionClosed(.internalError)), "\(events)")
        XCTAssertTrue(events.contains(.setupComplete(resumed: true)), "reconnected with the handle: \(events)")
        XCTAssertTrue(events.contains(.turnResent(text: "what is the capital of France")))
        XCTAssertFalse(events.contains { if case .failed = $0 { true } else { false } })
        XCTAssertTrue(text(events, input: false).contains("capital of France"), text(events, input: false))
        let stats = simulator.stats()
        XCTAssertEqual(stats.userTurns, ["what is the capital of France", "what is the capital of France"], "lost once, sent again once")
        XCTAssertEqual(stats.replies.count, 1, "answered once")
        XCTAssertEqual(stats.sessions.count, 1, "the same conversation")
        s.close()
    }

    func testPushToTalkTurnCutByA1011IsSentAgainWithItsAudio() async throws {
        var o = options(SimulatorFaults(closeOnTurn: (0, .internalError, 1)))
        o.audioTranscripts = ["What is the capital of France?"]
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup(manual: true), policy: quick)
        s.start()
        _ = await waitLive(s)
        let chunks = tone(ms: 1000)
        let events = await turn(s) {
            s.activityStart()
            for c in chunks { s.sendAudio(c) }
            s.activityEnd()
        }
        XCTAssertTrue(events.contains(.turnResent(text: nil)), "\(events)")
        XCTAssertFalse(text(events, input: false).isEmpty)
        let stats = simulator.stats()
        XCTAssertEqual(stats.replies.count, 1, "answered once")
        XCTAssertEqual(stats.sessions.first?.audioBytesReceived, 2 * chunks.reduce(0) { $0 + $1.count }, "the whole activity, sent twice")
        s.close()
    }

    func testEmpty1008IsTheTimeLimitAndReconnects() async throws {
        let url = try await startSimulator(options(SimulatorFaults(closeOnTurn: (0, .timeLimit, 1))))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        let events = await turn(s) { s.sendText("is the tide coming in") }
        XCTAssertTrue(events.contains(.connectionClosed(.timeLimit)), "\(events.filter { if case .connectionClosed = $0 { true } else { false } })")
        XCTAssertFalse(events.contains { if case .failed = $0 { true } else { false } }, "not 'the model name is wrong'")
        XCTAssertEqual(answered(events), 1)
        XCTAssertTrue(text(events, input: false).contains("tide coming in"), text(events, input: false))
        s.close()
    }

    func testRefusedHandleContinuesInAFreshSessionSeededWithTheConversation() async throws {
        let url = try await startSimulator(options(SimulatorFaults(
            closeOnTurn: (1, .internalError, 1), refuseHandles: .sessionExpired)))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        _ = await turn(s) { s.sendText("my name is Ada") }
        let events = await turn(s) { s.sendText("what is my name") }
        XCTAssertTrue(events.contains(.freshSession(.handleRefused(.sessionExpired))), "\(events)")
        XCTAssertTrue(events.contains(.setupComplete(resumed: false)))
        XCTAssertTrue(text(events, input: false).contains("what is my name"), "the question is answered in the new session")
        let stats = simulator.stats()
        XCTAssertEqual(stats.sessions.count, 2)
        XCTAssertTrue(stats.contextReceived.contains("my name is Ada"), "seeded: \(stats.contextReceived)")
        XCTAssertTrue(stats.contextReceived.contains { $0.contains("You said: my name is Ada") }, "with the model's side too")
        XCTAssertFalse(stats.contextReceived.contains("what is my name"), "the unanswered turn is asked, not seeded")
        s.close()
    }

    /// Session and simulator on one shifted clock: a drop more than two hours after the last handle starts a
    /// fresh session seeded with the conversation, over real sockets.
    func testADropPastTheHandlesLifetimeStartsAFreshSeededSession() async throws {
        let clock = ShiftedTime()
        let url = try await startSimulator(options(SimulatorFaults(closeOnTurn: (1, .internalError, 1))), time: clock.source)
        let (s, _) = session(url, setup(), policy: quick, time: clock.source)
        s.start()
        _ = await waitLive(s)
        _ = await turn(s) { s.sendText("my name is Ada") }
        clock.jump(2 * 60 * 60 + 60)
        let events = await turn(s) { s.sendText("what is my name") }
        // Expired here, or refused by the server when the newest handle arrived just after the jump.
        XCTAssertTrue(events.contains { if case .freshSession = $0 { true } else { false } }, "\(events)")
        XCTAssertTrue(events.contains(.setupComplete(resumed: false)))
        XCTAssertTrue(text(events, input: false).contains("what is my name"), text(events, input: false))
        let stats = simulator.stats()
        XCTAssertEqual(stats.sessions.count, 2)
        XCTAssertTrue(stats.contextReceived.contains("my name is Ada"), "seeded: \(stats.contextReceived)")
        s.close()
    }

    func testSpendingCap1011IsFatalWithTheRightMessage() async throws {
        let cap = CloseReason(code: 1011, reason: "Your project has exceeded its monthly spending cap. Raise it in AI Studio.")
        let url = try await startSimulator(options(SimulatorFaults(closeOnTurn: (0, cap, 1))))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        let events = await turn(s) { s.sendText("hello") }
        XCTAssertEqual(events.last, .failed(cap))
        XCTAssertFalse(events.contains { if case .reconnecting = $0 { true } else { false } }, "never retried")
        XCTAssertEqual(cap.kind, .fatalAccount)
        XCTAssertTrue(cap.description.contains("spending limit"), cap.description)
        XCTAssertFalse(cap.description.contains("internal error"))
        s.close()
    }

    /// The simulator goes away for `outage` seconds; a turn typed meanwhile is queued, then answered on the
    /// resumed session once it is back.
    func outage(_ mode: OutageMode, seconds: Double) async throws {
        let url = try await startSimulator(options(SimulatorFaults()))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        _ = await turn(s) { s.sendText("first question") }
        _ = await collect(s, timeout: 3) { e, _ in e == .resumptionUpdate(resumable: true) }
        try await simulator.setDown(mode)
        _ = await collect(s) { e, _ in if case .reconnecting = e { true } else { false } }
        XCTAssertTrue(s.isOffline)
        let id = s.sendText("are you back")
        let queued = await collect(s) { e, _ in if case .textQueued = e { true } else { false } }
        XCTAssertEqual(queued.last, .textQueued(id: id, text: "are you back", waiting: 1))
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let cameBack = ContinuousClock.now
        try await simulator.setDown(nil)
        let first = await collect(s) { e, _ in if case .outputTranscription = e { true } else { false } }
        let took = ContinuousClock.now - cameBack
        let events = await first + collect(s) { e, _ in if case .turnComplete = e { true } else { false } }
        XCTAssertTrue(events.contains(.setupComplete(resumed: true)), "resumed: \(events)")
        XCTAssertTrue(events.contains(.queuedTextSent(ids: [id])))
        XCTAssertTrue(text(events, input: false).contains("are you back"), text(events, input: false))
        XCTAssertEqual(simulator.stats().sessions.count, 1, "one conversation throughout")
        print("outage \(mode) \(seconds) s: first words of the answer \(took) after the server came back")
        s.close()
    }

    func testOutageWithRefusedConnectionsQueuesTypedTurns() async throws {
        try await outage(.refuseConnections, seconds: 2)
    }

    func testOutageWithImmediateClosesQueuesTypedTurns() async throws {
        try await outage(.closeImmediately, seconds: 2)
    }

    func testMicAudioIsNotHeldThroughALongOutage() async throws {
        let url = try await startSimulator(options(SimulatorFaults()))
        let (s, _) = session(url, setup(), policy: quick)
        s.start()
        _ = await waitLive(s)
        try await simulator.setDown(.refuseConnections)
        _ = await collect(s) { e, _ in if case .reconnecting = e { true } else { false } }
        for c in tone(ms: 3000) { s.sendAudio(c) }
        let events = await collect(s, timeout: 5) { e, _ in if case .heldAudioDropped = e { true } else { false } }
        guard case .heldAudioDropped(let bytes)? = events.last else { return XCTFail("\(events)") }
        XCTAssertGreaterThan(bytes, 2 * 32_000, "everything held was dropped at the 2 s mark")
        try await simulator.setDown(nil)
        _ = await collect(s) { e, _ in if case .setupComplete = e { true } else { false } }
        XCTAssertEqual(simulator.stats().audioBytesReceived, 0, "no stale speech replayed after the outage")
        s.close()
    }
}
