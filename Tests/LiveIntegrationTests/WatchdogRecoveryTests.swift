import Foundation
import Live
import LiveSimulator
import XCTest

/// The watchdog in a session against the simulator's silent-reply fault.
final class WatchdogRecoveryTests: LiveSessionTestCase {
    /// Sends a turn and collects until a turn with output completes.
    func answeredTurn(_ s: LiveSession, _ text: String) async -> [LiveEvent] {
        s.sendText(text)
        return await collect(s) { e, all in
            if case .failed = e { return true }
            guard case .turnComplete = e else { return false }
            return all.contains { if case .outputTranscription = $0 { true } else { false } }
        }
    }

    func testNoReplyIsNoticedAndTheTurnAskedAgain() async throws {
        let url = try await startSimulator({ var o = quickTurns; o.faults.silentReplies = (1, .nothing); return o }())
        let s = LiveSession(configuration: LiveConfiguration(
            endpoint: url, credential: .none, setup: setup(), watchdog: ReplyWatchdog.Policy(replyTimeout: 1)))
        s.start()
        _ = await waitLive(s)
        let events = await answeredTurn(s, "are you there")
        XCTAssertTrue(events.contains { if case .replyStalled(.noReply, .nudge) = $0 { true } else { false } }, "\(events)")
        XCTAssertTrue(text(events, input: false).contains("are you there"))
        XCTAssertEqual(simulator.stats().silentReplies, 1)
        s.close()
    }

    func testAStuckSessionIsResumedOnANewConnection() async throws {
        var o = quickTurns
        o.resumptionUpdateAfterSetup = true
        o.faults.silentReplies = (2, .nothing)
        let url = try await startSimulator(o)
        let s = LiveSession(configuration: LiveConfiguration(
            endpoint: url, credential: .none, setup: setup(), watchdog: ReplyWatchdog.Policy(replyTimeout: 1)))
        s.start()
        _ = await waitLive(s)
        let events = await answeredTurn(s, "is anyone listening")
        let stalls = events.compactMap { e -> ReplyWatchdog.Recovery? in if case .replyStalled(_, let r) = e { r } else { nil } }
        XCTAssertEqual(stalls, [.nudge, .resume], "\(events)")
        XCTAssertTrue(events.contains(.setupComplete(resumed: true)))
        XCTAssertTrue(text(events, input: false).contains("is anyone listening"), text(events, input: false) + " \(simulator.stats().userTurns) \(simulator.stats().replies)")
        s.close()
    }

    func testSilentReplyAudioIsNoticed() async throws {
        var o = SimulatorOptions()
        o.faults.silentReplies = (1, .quietAudio)
        o.audioSpeedup = 1
        let url = try await startSimulator(o)
        let s = LiveSession(configuration: LiveConfiguration(
            endpoint: url, credential: .none, setup: setup(),
            watchdog: ReplyWatchdog.Policy(replyTimeout: 5, quietSeconds: 0.5)))
        s.start()
        _ = await waitLive(s)
        s.sendText("tell me a long story about the quiet sea and the wind")
        let after = await collect(s) { e, _ in if case .outputTranscription = e { true } else { false } }
        XCTAssertTrue(after.contains { if case .replyStalled(.quietReply, .nudge) = $0 { true } else { false } }, "\(after)")
        s.close()
    }
}
