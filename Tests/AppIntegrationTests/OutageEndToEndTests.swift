import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

/// Issue 16's "done when" in the full-screen app: the server goes away, a turn typed meanwhile is queued, and it is
/// answered on the resumed session once the server is back, with no restart.
final class OutageEndToEndTests: XCTestCase {
    func testTypedTurnDuringAnOutageIsAnsweredWhenTheServerIsBack() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-outage-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let env = isolatedEnvironment(home: home, ["TERM": "tmux-256color"])
        let tmux = try Tmux(width: 120, env: env)
        defer { tmux.close() }
        // The simulator starts after tmux: a tmux server spawned later would inherit its listening socket.
        var o = SimulatorOptions()
        o.resumptionUpdateAfterSetup = true
        let sim = LiveSimulator(options: o)
        try await sim.start()
        defer { Task { try? await sim.stop() } }

        try tmux.type("'\(Binaries.parley)' --no-audio --endpoint \(sim.url); echo EXITED:$?", enter: true)
        try tmux.wait(for: "live")
        try tmux.keys("Tab")
        try tmux.type("first message", enter: true)
        try tmux.wait(for: "turn 1 of our")

        try await sim.setDown(.refuseConnections)
        try tmux.wait(for: "offline — retrying")
        try tmux.type("typed during the outage", enter: true)
        try tmux.wait(for: "queued")
        try await sim.setDown(nil)
        let screen = try tmux.wait(for: "You said: typed during the outage")
        XCTAssertTrue(screen.contains("conversation resumed"), screen)
        XCTAssertEqual(sim.stats().sessions.count, 1, "the same conversation, no restart")
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")

        let dir = home + "/data/parley"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jsonl") }
        let saved = try files.map { try String(contentsOfFile: dir + "/" + $0, encoding: .utf8) }.joined()
        XCTAssertTrue(saved.contains(#""kind":"queued""#), saved)
        XCTAssertTrue(saved.contains(#""kind":"sent""#), "when it was sent: \(saved)")
    }
}
