import Foundation
import ParleyTesting
import XCTest

/// TUIDemo in a real tmux pane at 80×24: layout, overlay, resize, `q` restoring the terminal to a working shell.
/// Skips when tmux is not installed or TUIDemo is not built (`PARLEY_TUIDEMO_BIN` overrides where to find it).
final class TmuxSmokeTests: XCTestCase {
    func findDemo() -> String? {
        if let p = ProcessInfo.processInfo.environment["PARLEY_TUIDEMO_BIN"] { return p }
        return Binaries.product("TUIDemo")
    }

    func testDemoInTmux() throws {
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        let t = try Tmux(width: 80, height: 24, command: ["env", "PS1=$ ", "TERM=screen-256color", "sh"])
        defer { t.close() }
        try t.type("S=$(stty -g); '\(demo)' --still; echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed", enter: true)

        var pane = try t.wait(for: "the first frame") { $0.contains("tool calls") && $0.contains("spk [") }
        var lines = pane.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix(" parley  ● live  voice Puck"), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("DEMO"), lines[0])
        XCTAssertTrue(lines[1].contains("PTT: tap/hold"), "tmux has no kitty protocol: \(lines[1])")
        XCTAssertTrue(pane.contains("you     東京の天気は？ 😀 ありがとう"), "wide characters reach the terminal")
        XCTAssertTrue(lines.contains { $0.hasPrefix(" mic [") })
        XCTAssertTrue(lines[23].hasPrefix(" Space tap/hold: talk  v voice"), lines[23])

        try t.keys("v")
        pane = try t.wait(for: "the voice menu") { $0.contains("Voice (30)") && $0.contains("● Puck") }
        try t.type("kor")
        pane = try t.wait(for: "the filtered menu") { $0.contains("filter: kor") }
        try t.keys("Enter")
        pane = try t.wait(for: "the voice change") { $0.contains("voice Kore") && !$0.contains("Voice (30)") }

        try t.keys("?")
        pane = try t.wait(for: "help") { $0.contains("┌─ Keys") }
        try t.keys("Escape")
        pane = try t.wait(for: "help to close") { !$0.contains("┌─ Keys") }

        try t.resize(width: 120, height: 40)
        pane = try t.wait(for: "the 120×40 layout") { p in
            let l = p.split(separator: "\n", omittingEmptySubsequences: false)
            return l.count >= 40 && l[2].contains("│─ tool calls") && l[39].contains("q quit")
        }
        try t.resize(width: 30, height: 10)
        pane = try t.wait(for: "the too-small message") { $0.contains("terminal too small") && $0.contains("now 30×10") }
        try t.resize(width: 80, height: 24)
        pane = try t.wait(for: "the 80×24 layout again") { $0.contains("─ tool calls (3) ─") && !$0.contains("too small") }
        lines = pane.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix(" parley  ● live  voice Kore"), lines[0])

        try t.keys("q")
        pane = try t.wait(for: "exit") { $0.contains("EXITED:0") && $0.contains("STTY:") }
        XCTAssertTrue(pane.contains("STTY:same"), "tty modes restored:\n\(pane)")
        XCTAssertFalse(pane.contains("tool calls"), "the alternate screen is gone")
        try t.type("echo SHELL-$((40+2))", enter: true)
        pane = try t.wait(for: "the shell to answer") { $0.contains("SHELL-42") }
        XCTAssertTrue(pane.contains("$ echo SHELL-$((40+2))"), "typed keys echo again:\n\(pane)")
    }

    /// Crash signals restore the terminal, let the crash report appear and kill the process with the signal;
    /// SIGTERM, SIGINT and SIGHUP let the program quit cleanly.
    func testSignalsRestoreTheTerminal() throws {
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        let t = try Tmux(width: 80, height: 24, command: ["env", "PS1=$ ", "TERM=screen-256color", "sh"])
        defer { t.close() }
        var run = 0
        func runDemo(_ extra: String, then action: (String) throws -> Void) throws -> String {
            run += 1
            let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(t.socket)-\(run).pid").path
            defer { unlink(pidFile) }
            try t.type("clear; S=$(stty -g); '\(demo)' --still --pid-file \(pidFile) \(extra); echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed", enter: true)
            // The pid is written once the demo has taken over the terminal.
            var pidText = ""
            eventually(timeout: 20, "the demo's pid file") {
                pidText = ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                return pid_t(pidText) != nil
            }
            try action(pidText)
            return try t.wait(for: "the demo to end (\(extra))") { $0.contains("EXITED:") && $0.contains("STTY:") }
        }
        for (sig, name) in [(SIGSEGV, "SIGSEGV"), (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP")] {
            let pane = try runDemo("--crash \(sig)") { _ in }
            XCTAssertTrue(pane.contains("EXITED:\(128 + sig)"), "\(name) kills the process with the signal:\n\(pane)")
            XCTAssertTrue(pane.contains("STTY:same"), "\(name) restores the tty:\n\(pane)")
            XCTAssertFalse(pane.contains("tool calls"), "\(name) leaves the alternate screen:\n\(pane)")
        }
        for (sig, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")] {
            let pane = try runDemo("") { pid in
                guard let p = pid_t(pid), p > 0 else { return XCTFail("no pid file") }
                kill(p, sig)
            }
            XCTAssertTrue(pane.contains("EXITED:0"), "\(name) lets the program quit cleanly:\n\(pane)")
            XCTAssertTrue(pane.contains("STTY:same"), "\(name) restores the tty:\n\(pane)")
            XCTAssertFalse(pane.contains("tool calls"), "\(name) leaves the alternate screen:\n\(pane)")
        }
    }

    /// Ctrl-Z gives the terminal back to the shell (tty modes restored) and `fg` takes it over again.
    func testSuspendAndResume() throws {
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        let t = try Tmux(width: 80, height: 24, command: ["env", "PS1=$ ", "TERM=screen-256color", "sh"])
        defer { t.close() }
        func type(_ line: String) throws {
            try t.type(line, enter: true)
        }
        try type("S=$(stty -g)")
        try type("'\(demo)' --still")
        _ = try t.wait(for: "the first frame") { $0.contains("tool calls") }
        try t.keys("C-z")
        _ = try t.wait(for: "the shell after Ctrl-Z") { $0.contains("Stopped") }
        try type("[ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed")
        var pane = try t.wait(for: "stty") { $0.contains("STTY:") }
        XCTAssertTrue(pane.contains("STTY:same"), pane)
        try type("fg")
        _ = try t.wait(for: "the frame after fg") { $0.contains("tool calls") && $0.contains(" parley ") }
        try t.keys("v")
        _ = try t.wait(for: "keys work after resuming") { $0.contains("Voice (30)") }
        try t.keys("Escape")
        _ = try t.wait(for: "the menu to close") { !$0.contains("Voice (30)") }
        try t.keys("q")
        // Type the next command only at the prompt, or the demo might read it as keys.
        _ = try t.wait(for: "the prompt") { p in
            p.split(separator: "\n").last(where: { !$0.allSatisfy { $0 == " " } }).map { $0.trimmingCharacters(in: .whitespaces) == "$" } ?? false
        }
        try type("echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY2:same || echo STTY2:changed")
        pane = try t.wait(for: "exit") { $0.contains("STTY2:") }
        XCTAssertTrue(pane.contains("EXITED:0"), pane)
        XCTAssertTrue(pane.contains("STTY2:same"), pane)
    }
}
