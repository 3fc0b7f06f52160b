import Foundation
import Live
import LiveSimulator
import ParleyTesting
import ParleyTime
import TUI
import XCTest

@testable import App

/// The runtime in-process: the real loop, reducer, effect runner, `AudioIO` and `LiveSession`, against the
/// simulator on loopback, with fake sound, a grid screen and a clock moved by hand. Each flow asserts on what
/// went on the wire and what the user sees, and prints how long it took.
final class RuntimeFlowTests: XCTestCase {
    private var started = 0.0

    override func setUp() { started = TimeSource.monotonicSeconds() }

    override func tearDown() {
        print("runtime flow \(name): \(Int(((TimeSource.monotonicSeconds() - started) * 1000).rounded())) ms")
    }

    /// Space down → activityStart and mic audio; Space up → activityEnd after the last chunk; the reply's
    /// audio reaches the speaker and its words the transcript.
    func testPushToTalkSendsTheTurnAndPlaysTheReply() async throws {
        let h = try await RuntimeHarness()
        h.start()
        h.waitUntilLive()

        h.talk(milliseconds: 400)
        h.wait("activityEnd on the wire") { h.wire.kinds.contains("realtimeInput.activityEnd") }

        let kinds = h.wire.kinds.filter { $0.hasPrefix("realtimeInput") }
        XCTAssertEqual(kinds.first, "realtimeInput.activityStart")
        XCTAssertEqual(kinds.last, "realtimeInput.activityEnd")
        XCTAssertEqual(kinds.dropFirst().dropLast().count, 21, "20 ms chunks of 400 ms, and the one that closed the gate")
        XCTAssertTrue(kinds.dropFirst().dropLast().allSatisfy { $0 == "realtimeInput.audio" })

        h.wait("the reply to be played") { h.speaker.drainCount >= 1 && !h.speaker.played.isEmpty }
        h.waitForScreen("Hello! Yes, I can hear you clearly.")
        h.waitForScreen("Hello, can you hear me?")
        let stats = h.simulator.stats()
        XCTAssertEqual(stats.userTurns, ["Hello, can you hear me?"])
        XCTAssertEqual(stats.audioBytesReceived, 21 * 640)
        XCTAssertEqual(h.speaker.flushCount, 0, "nothing cut")
        await h.stop()
    }

    /// Talking over a reply: the reply is cut at once (the speaker flushed), the server's `interrupted` flushes
    /// again on the receive path, and the new turn goes out.
    func testBargeInFlushesTheSpeaker() async throws {
        var options = SimulatorOptions.quick
        options.audioSpeedup = 1  // a reply still playing when the user talks over it
        options.burstInterval = .milliseconds(20)
        options.turnCompleteAfterPlayback = true
        let h = try await RuntimeHarness(simulator: options)
        h.start()
        h.waitUntilLive()
        h.typeTurn("tell me a long story")
        h.wait("reply audio at the speaker") { !h.speaker.pending.isEmpty }
        XCTAssertEqual(h.speaker.flushCount, 0)

        h.talk(milliseconds: 100)
        h.wait("the speaker to be flushed") { h.speaker.flushCount >= 1 }
        h.wait("the interruption to reach the simulator") { h.simulator.stats().interruptions == 1 }
        h.wait("the new turn on the wire") { h.wire.kinds.contains("realtimeInput.activityEnd") }
        h.waitForScreen("[interrupted]")
        XCTAssertEqual(h.wire.kinds.filter { $0 == "realtimeInput.activityStart" }.count, 1)
        await h.stop()
    }

    /// The voice menu: a new voice resumes the conversation on a new connection with the handle, the new voice
    /// in its setup, and the header names it.
    func testAVoiceSwitchResumesWithTheHandleAndTheNewVoice() async throws {
        let h = try await RuntimeHarness()
        h.start()
        h.waitUntilLive()
        let first = try XCTUnwrap(h.simulator.stats().setups.first)
        let names = Voice.all.map(\.name)
        let current = try XCTUnwrap(names.firstIndex(of: first.voiceName ?? ""))
        let next = names[(current + 1) % names.count]

        h.press(.char("v"))
        h.waitForScreen(next)
        h.press(KeyEvent(.down), KeyEvent(.enter))
        h.wait("a second setup") { h.simulator.stats().setups.count == 2 }
        let second = try XCTUnwrap(h.simulator.stats().setups.last)
        XCTAssertEqual(second.voiceName, next)
        XCTAssertTrue(second.resumed, "the new connection resumes with the handle")
        XCTAssertEqual(second.sessionID, first.sessionID, "the same conversation")
        XCTAssertNotNil((h.wire.setups.last?["sessionResumption"] as? [String: Any])?["handle"])
        h.wait("the header to name the new voice") { h.header.contains(next) && h.header.contains(" live") }
        await h.stop()
    }

    /// The service goes away: the header says offline, a turn typed meanwhile waits, and once the service is
    /// back the conversation resumes and the turn is answered: nothing lost.
    func testAnOutageShowsOfflineAndLosesNothing() async throws {
        let h = try await RuntimeHarness()
        h.start()
        h.waitUntilLive()

        try await h.simulator.setDown(.refuseConnections)
        h.wait("the header to say offline") { h.header.contains("offline") }
        h.typeTurn("are you still there")
        h.waitForScreen("are you still there")
        XCTAssertFalse(h.simulator.stats().userTurns.contains("are you still there"))

        try await h.simulator.setDown(nil)
        h.advance(5)  // past the backoff
        h.press(.char("r"))  // the header's "r: now", so the test does not wait out a real timer
        h.wait("the header to say live again") { h.header.contains(" live") }
        h.wait("the queued turn answered") { h.simulator.stats().userTurns.contains("are you still there") }
        let setups = h.simulator.stats().setups
        XCTAssertTrue(setups.last?.resumed == true, "back with the handle")
        XCTAssertEqual(Set(setups.map(\.sessionID)).count, 1, "the same conversation")
        await h.stop()
    }

    /// The model calls a tool: it runs, its response goes on the wire, the tool pane shows it, and the answer
    /// that uses it reaches the transcript.
    func testAToolCallRunsAndItsResponseGoesOnTheWire() async throws {
        let h = try await RuntimeHarness()
        h.start()
        h.waitUntilLive()
        h.typeTurn("what time is it")
        h.wait("a toolResponse on the wire") { !h.wire.toolResponses.isEmpty }
        let sent = try XCTUnwrap(h.simulator.stats().toolCallsSent.first)
        h.wait("the simulator to receive it") { h.simulator.stats().toolResponsesReceived == [sent] }
        let responses = try XCTUnwrap(h.wire.toolResponses.first?["functionResponses"] as? [[String: Any]])
        XCTAssertEqual(responses.first?["id"] as? String, sent)
        XCTAssertEqual(responses.first?["name"] as? String, "get_current_time")
        h.waitForScreen("tool calls (1)")
        h.wait("the tool pane to show the call finished") { h.screen.contains("get_cur") && h.screen.contains(" ok ") }
        h.waitForScreen("right now")
        await h.stop()
    }
}
