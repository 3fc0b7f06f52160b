import Foundation
import ParleyTesting
import XCTest

/// gemini-3.8-live (the default) runs functions NON_BLOCKING: on the simulator the reply keeps talking while
/// the tool runs, the result follows when the model is idle, and the tool log says how the call ran.
extension EndToEndTests {
    func testANonBlockingToolCallKeepsTheReplyTalkingAndTheLogShowsItsScheduling() throws {
        let tmux = try Tmux(width: 140, height: 40, env: env(["PULSE_SERVER": "unix:/nonexistent/parley/native"]))
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo --no-audio; echo EXITED:$?", enter: true)
        try tmux.wait(for: "live")
        try tmux.keys("Tab")
        try tmux.type("what time is it", enter: true)
        try tmux.wait(for: "Let me look into that", "the model talks on while the tool runs")
        // The name is whole in the side pane; how the call runs shortens to `async` where `async·when_idle` does
        // not fit beside it (the name outranks the scheduling: ToolLogRowTests).
        let log = try tmux.wait(for: "get_current_time", "the tool log shows the call")
        XCTAssertTrue(log.contains("async"), "the tool log shows the call runs NON_BLOCKING: \(log)")
        let done = try tmux.wait(for: "right now. That's turn 1", "the result is spoken once the model is idle")
        XCTAssertTrue(done.contains("thinking:"), "the model's thoughts are folded dim lines, not the reply: \(done)")
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testModelsListsTheTable() throws {
        let r = try shell([Binaries.parley, "models"], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.hasPrefix("gemini-3.8-live  (default)\n"), r.out)
        for id in ["gemini-3.8-live-extended-thinking", "gemini-3.1-flash-live-preview", "gemini-2.5-flash-native-audio-preview-12-2025"] {
            XCTAssertTrue(r.out.contains(id), id)
        }
        XCTAssertTrue(r.out.contains("typed text: realtimeInput.text"), "3.1's typed text: \(r.out)")
    }

    func testAskDefaultsToGemini38AndPrintsNoThoughts() throws {
        let sim = try SimulatorProcess(["--reply-delay", "0", "--turn-complete-at-once"])
        defer { sim.stop() }
        let port = sim.port
        let endpoint = "ws://127.0.0.1:\(port)"
        let plain = try shell([Binaries.parley, "ask", "--endpoint", endpoint, "hello"], env: env())
        XCTAssertEqual(plain.status, 0, plain.err)
        XCTAssertEqual(plain.out, "you: hello\ngemini: Hello! Yes, I can hear you clearly. That's turn 1 of our chat.\n")
        let thoughts = try shell([Binaries.parley, "ask", "--thoughts", "--endpoint", endpoint, "hello"], env: env())
        XCTAssertTrue(thoughts.out.contains("thinking: **Answering the user**"), thoughts.out)
        let json = try shell([Binaries.parley, "ask", "--json", "--endpoint", endpoint, "hello"], env: env())
        XCTAssertTrue(json.out.contains(#""event":"thought""#), json.out)
        let refused = try shell([Binaries.parley, "ask", "--endpoint", endpoint, "--thinking", "high", "hello"], env: env())
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.err.contains("--thinking is not accepted by gemini-3.8-live"), refused.err)
    }
}
