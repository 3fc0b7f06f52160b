import Foundation
import ParleyTesting
import XCTest

/// TUIDemo runs parley's own reducer: a typed turn is answered, a persona is chosen from the menu and greets, and
/// `m` moves to open mic through a "new connection", as in parley. Skips like `TmuxSmokeTests`.
final class TmuxDemoConversationTests: XCTestCase {
    func testTheDemoAnswersThroughTheReducer() throws {
        guard let demo = ProcessInfo.processInfo.environment["PARLEY_TUIDEMO_BIN"] ?? Binaries.product("TUIDemo") else {
            throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)")
        }
        let t = try Tmux(width: 100, height: 30, command: ["env", "PS1=$ ", "TERM=screen-256color", "sh"])
        defer { t.close() }
        try t.type("'\(demo)' --still; echo EXITED:$?", enter: true)
        _ = try t.wait(for: "the first frame") { $0.contains("tool calls (3)") }

        try t.keys("Tab")
        try t.type("hello there", enter: true)
        var pane = try t.wait(for: "the demo's answer") { $0.contains("(demo) You said: hello there") }
        XCTAssertTrue(pane.contains("you     hello there"), pane)
        try t.keys("Escape")

        try t.keys("p")
        _ = try t.wait(for: "the persona menu") { $0.contains("Pirate") && $0.contains("Tutor") }
        try t.type("pir")
        try t.keys("Enter")
        pane = try t.wait(for: "the persona to take over") { $0.contains("now speaking as persona Pirate") && $0.contains("(demo) You said: Say ahoy.") }
        XCTAssertTrue(pane.contains("voice Fenrir"), "the persona's voice is in the header:\n\(pane)")

        try t.keys("m")
        pane = try t.wait(for: "open mic") { $0.contains("open mic: just talk; Space mutes") }
        XCTAssertTrue(pane.contains("Space (open mic)"), pane)

        try t.keys("q")
        _ = try t.wait(for: "exit") { $0.contains("EXITED:0") }
    }
}
