import Foundation
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// Fault injection: goAway then close, drops, malformed frames, closes after setup, reply delays.
final class SimulatorFaultTests: SimulatorTestCase {
    func testGoAwayThenNormalClose() async throws {
        let options = SimulatorOptions(goAwayAfter: .milliseconds(200), goAwayTimeLeft: .milliseconds(500))
        let (sim, client) = try await connected(options)
        let seen = try await client.collect(until: "goAway") { $0.goAway != nil }
        XCTAssertEqual(seen.last?.goAway?.timeLeft, "0.5s")
        try await assertClosed(client, code: 1000, reason: "")
        XCTAssertEqual(sim.stats().goAwaysSent, 1)

        // Only the first connection gets the fault by default.
        let second = SimTestClient(url: sim.url)
        try await second.setUp(makeSetup())
        try second.send(.clientContent(.userText("still there?")))
        let reply = try await second.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertFalse(reply.contains { $0.goAway != nil })
        XCTAssertEqual(sim.stats().goAwaysSent, 1)
    }

    func testGoAwayOnEveryConnection() async throws {
        let options = SimulatorOptions(goAwayAfter: .milliseconds(50), goAwayTimeLeft: .milliseconds(100), faultScope: .everyConnection)
        let sim = try await startSimulator(options)
        for _ in 0..<2 {
            let client = SimTestClient(url: sim.url)
            try await client.setUp(makeSetup())
            _ = try await client.collect(until: "goAway") { $0.goAway != nil }
            try await assertClosed(client, code: 1000, reason: "")
        }
        XCTAssertEqual(sim.stats().goAwaysSent, 2)
    }

    func testDropClosesWithoutACloseFrame() async throws {
        let (sim, client) = try await connected(SimulatorOptions(dropAfter: .milliseconds(200)))
        let frame = try await client.closeFrame()
        XCTAssertNil(frame, "no close frame: the client sees 1006")
        let stats = try await waitForStats(sim, "the connection to close") { $0.openConnections == 0 }
        XCTAssertEqual(stats.dropsInjected, 1)
        XCTAssertEqual(stats.closesSent, [])
    }

    func testMalformedFrameThenNormalService() async throws {
        let (_, client) = try await connected(SimulatorOptions(malformedFrameAfterSetup: true, replyDelay: .zero, turnCompleteAfterPlayback: false))
        guard case .undecodable(let text) = try await client.next() else { return XCTFail("expected a malformed frame") }
        XCTAssertTrue(text.hasPrefix(#"{"serverContent""#))
        try client.send(.clientContent(.userText("are you ok")))
        let reply = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(reply.outputTranscript, "You said: are you ok. That's turn 1 of our chat.")
    }

    func testCloseAfterSetup() async throws {
        let (sim, client) = try await connected(SimulatorOptions(closeAfterSetup: (1011, "You exceeded your current quota.")))
        try await assertClosed(client, code: 1011, reason: "You exceeded your current quota.")
        XCTAssertEqual(sim.stats().lastCloseSent, CloseReason(code: 1011, reason: "You exceeded your current quota."))
    }

    func testReplyDelay() async throws {
        let (_, client) = try await connected(SimulatorOptions(replyDelay: .milliseconds(600), turnCompleteAfterPlayback: false))
        try client.send(.clientContent(.userText("hello")))
        let start = ContinuousClock.now
        _ = try await client.collect(until: "first reply audio") { !$0.audio.isEmpty }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(550))
    }

    func testStopClosesOpenConnections() async throws {
        let sim = LiveSimulator()
        try await sim.start()
        let client = SimTestClient(url: sim.url)
        try await client.setUp(makeSetup())
        let waiter = Task { try await sim.waitUntilStopped() }
        try await sim.stop()
        _ = try await client.closeFrame()
        try await waiter.value
        XCTAssertNil(sim.port)
    }
}
