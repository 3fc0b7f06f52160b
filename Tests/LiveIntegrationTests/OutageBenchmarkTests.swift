import Foundation
import Live
import LiveSimulator
import XCTest

/// Issue 16's "done when", as numbers: the simulator unreachable for 60 s, a turn typed 30 s into the outage,
/// the default reconnect policy. Run with `PARLEY_BENCH=1 swift test --filter OutageBenchmarkTests`.
final class OutageBenchmarkTests: LiveSessionTestCase {
    func testSixtySecondOutageWithATypedTurn() async throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1 to run benchmarks") }
        let seconds = Double(ProcessInfo.processInfo.environment["PARLEY_OUTAGE_SECONDS"] ?? "") ?? 60
        var o = SimulatorOptions()
        o.resumptionUpdateAfterSetup = true
        let url = try await startSimulator(o)
        let (s, _) = session(url, setup())
        s.start()
        _ = await waitLive(s)
        _ = await turn(s) { s.sendText("first question") }
        _ = await collect(s, timeout: 3) { e, _ in e == .resumptionUpdate(resumable: true) }
        try await simulator.setDown(.refuseConnections)
        try await Task.sleep(for: .milliseconds(Int64(seconds * 500)))
        s.sendText("did you miss me")
        try await Task.sleep(for: .milliseconds(Int64(seconds * 500)))
        let back = ContinuousClock.now
        try await simulator.setDown(nil)
        let events = await collect(s, timeout: 60) { e, _ in if case .outputTranscription = e { true } else { false } }
        let took = ContinuousClock.now - back
        let attempts = events.filter { if case .connecting = $0 { true } else { false } }.count
        XCTAssertTrue(events.contains(.setupComplete(resumed: true)), "\(events)")
        print("outage \(Int(seconds)) s, turn typed half-way: first words of the answer \(took) after the server came back; resumed: \(events.contains(.setupComplete(resumed: true))); sessions: \(simulator.stats().sessions.count); connection attempts while the user waited: \(attempts)")
        s.close()
    }
}
