import Foundation
import XCTest

/// TUIDemo in a real tmux pane at 80×24: layout, overlay, resize, `q` restoring the terminal to a working shell.
/// Skips when tmux is not installed or TUIDemo is not built (`PARLEY_TUIDEMO_BIN` overrides where to find it).
final class TmuxSmokeTests: XCTestCase {
    var socket = ""

    func findTmux() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func findDemo() -> String? {
        if let p = ProcessInfo.processInfo.environment["PARLEY_TUIDEMO_BIN"] { return p }
        let bundleDir = Bundle(for: Self.self).bundleURL.deletingLastPathComponent()
        let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [bundleDir.appendingPathComponent("TUIDemo").path, pkg.appendingPathComponent(".build/debug/TUIDemo").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs tmux with posix_spawn and waitpid (Foundation's Process waits for a pipe the daemonised tmux server
    /// inherits, so it would never return). Output is captured through a temporary file.
    @discardableResult
    func tmux(_ tmuxPath: String, _ args: [String]) throws -> String {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out").path
        defer { unlink(outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = "C.UTF-8"
        env.removeValue(forKey: "TMUX")
        let argv = [tmuxPath, "-u", "-L", socket, "-f", "/dev/null"] + args
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { cArgs.forEach { free($0) }; cEnv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, tmuxPath, &actions, nil, cArgs, cEnv)
        guard rc == 0 else { throw XCTSkip("cannot run tmux: error \(rc)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    /// Polls the pane until `condition` holds or the deadline passes; returns the last capture.
    func waitFor(_ tmuxPath: String, timeout: Double = 20, _ what: String, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try tmux(tmuxPath, ["capture-pane", "-p", "-t", "smoke"])
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what); pane:\n\(last)")
        return last
    }

    func testDemoInTmux() throws {
        guard let tmuxPath = findTmux() else { throw XCTSkip("tmux is not on PATH") }
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        socket = "parley-test-\(getpid())"
        defer {
            _ = try? tmux(tmuxPath, ["kill-server"])
            let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
            unlink("\(dir)/tmux-\(getuid())/\(socket)")
        }

        try tmux(tmuxPath, ["new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24", "env", "PS1=$ ", "TERM=screen-256color", "sh"])
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "-l",
                            "S=$(stty -g); '\(demo)' --still; echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed"])
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Enter"])

        var pane = try waitFor(tmuxPath, "the first frame") { $0.contains("tool calls") && $0.contains("spk [") }
        var lines = pane.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix(" parley  ● live  voice Puck"), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("DEMO"), lines[0])
        XCTAssertTrue(lines[1].contains("PTT: tap/hold"), "tmux has no kitty protocol: \(lines[1])")
        XCTAssertTrue(pane.contains("you     東京の天気は？ 😀 ありがとう"), "wide characters reach the terminal")
        XCTAssertTrue(lines.contains { $0.hasPrefix(" mic [") })
        XCTAssertTrue(lines[23].hasPrefix(" Space tap/hold: talk  v voice"), lines[23])

        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "v"])
        pane = try waitFor(tmuxPath, "the voice menu") { $0.contains("Voice (30)") && $0.contains("● Puck") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "-l", "kor"])
        pane = try waitFor(tmuxPath, "the filtered menu") { $0.contains("filter: kor") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Enter"])
        pane = try waitFor(tmuxPath, "the voice change") { $0.contains("voice Kore") && !$0.contains("Voice (30)") }

        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "?"])
        pane = try waitFor(tmuxPath, "help") { $0.contains("┌─ Keys") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Escape"])
        pane = try waitFor(tmuxPath, "help to close") { !$0.contains("┌─ Keys") }

        try tmux(tmuxPath, ["resize-window", "-t", "smoke", "-x", "120", "-y", "40"])
        pane = try waitFor(tmuxPath, "the 120×40 layout") { p in
            let l = p.split(separator: "\n", omittingEmptySubsequences: false)
            return l.count >= 40 && l[2].contains("│─ tool calls") && l[39].contains("q quit")
        }
        try tmux(tmuxPath, ["resize-window", "-t", "smoke", "-x", "30", "-y", "10"])
        pane = try waitFor(tmuxPath, "the too-small message") { $0.contains("terminal too small") && $0.contains("now 30×10") }
        try tmux(tmuxPath, ["resize-window", "-t", "smoke", "-x", "80", "-y", "24"])
        pane = try waitFor(tmuxPath, "the 80×24 layout again") { $0.contains("─ tool calls (3) ─") && !$0.contains("too small") }
        lines = pane.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines[0].hasPrefix(" parley  ● live  voice Kore"), lines[0])

        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "q"])
        pane = try waitFor(tmuxPath, "exit") { $0.contains("EXITED:0") && $0.contains("STTY:") }
        XCTAssertTrue(pane.contains("STTY:same"), "tty modes restored:\n\(pane)")
        XCTAssertFalse(pane.contains("tool calls"), "the alternate screen is gone")
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "-l", "echo SHELL-$((40+2))"])
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Enter"])
        pane = try waitFor(tmuxPath, "the shell to answer") { $0.contains("SHELL-42") }
        XCTAssertTrue(pane.contains("$ echo SHELL-$((40+2))"), "typed keys echo again:\n\(pane)")
    }

    /// Crash signals restore the terminal, let the crash report appear and kill the process with the signal;
    /// SIGTERM, SIGINT and SIGHUP let the program quit cleanly.
    func testSignalsRestoreTheTerminal() throws {
        guard let tmuxPath = findTmux() else { throw XCTSkip("tmux is not on PATH") }
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        socket = "parley-test-\(getpid())"
        defer {
            _ = try? tmux(tmuxPath, ["kill-server"])
            let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
            unlink("\(dir)/tmux-\(getuid())/\(socket)")
        }
        try tmux(tmuxPath, ["new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24", "env", "PS1=$ ", "TERM=screen-256color", "sh"])
        var run = 0
        func runDemo(_ extra: String, then action: (String) throws -> Void) throws -> String {
            run += 1
            let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(run).pid").path
            defer { unlink(pidFile) }
            try tmux(tmuxPath, ["send-keys", "-t", "smoke", "-l",
                                "clear; S=$(stty -g); '\(demo)' --still --pid-file \(pidFile) \(extra); echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed"])
            try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Enter"])
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: pidFile) && Date() < deadline { usleep(20_000) }
            usleep(50_000)
            let pidText = (try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? ""
            try action(pidText.trimmingCharacters(in: .whitespacesAndNewlines))
            return try waitFor(tmuxPath, "the demo to end (\(extra))") { $0.contains("EXITED:") && $0.contains("STTY:") }
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
        guard let tmuxPath = findTmux() else { throw XCTSkip("tmux is not on PATH") }
        guard let demo = findDemo() else { throw XCTSkip("TUIDemo is not built (swift build --product TUIDemo)") }
        socket = "parley-test-\(getpid())"
        defer {
            _ = try? tmux(tmuxPath, ["kill-server"])
            let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
            unlink("\(dir)/tmux-\(getuid())/\(socket)")
        }
        try tmux(tmuxPath, ["new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24", "env", "PS1=$ ", "TERM=screen-256color", "sh"])
        func type(_ line: String) throws {
            try tmux(tmuxPath, ["send-keys", "-t", "smoke", "-l", line])
            try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Enter"])
        }
        try type("S=$(stty -g)")
        try type("'\(demo)' --still")
        _ = try waitFor(tmuxPath, "the first frame") { $0.contains("tool calls") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "C-z"])
        _ = try waitFor(tmuxPath, "the shell after Ctrl-Z") { $0.contains("Stopped") }
        try type("[ \"$(stty -g)\" = \"$S\" ] && echo STTY:same || echo STTY:changed")
        var pane = try waitFor(tmuxPath, "stty") { $0.contains("STTY:") }
        XCTAssertTrue(pane.contains("STTY:same"), pane)
        try type("fg")
        _ = try waitFor(tmuxPath, "the frame after fg") { $0.contains("tool calls") && $0.contains(" parley ") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "v"])
        _ = try waitFor(tmuxPath, "keys work after resuming") { $0.contains("Voice (30)") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "Escape"])
        _ = try waitFor(tmuxPath, "the menu to close") { !$0.contains("Voice (30)") }
        try tmux(tmuxPath, ["send-keys", "-t", "smoke", "q"])
        // Type the next command only at the prompt, or the demo might read it as keys.
        _ = try waitFor(tmuxPath, "the prompt") { p in
            p.split(separator: "\n").last(where: { !$0.allSatisfy { $0 == " " } }).map { $0.trimmingCharacters(in: .whitespaces) == "$" } ?? false
        }
        try type("echo EXITED:$?; [ \"$(stty -g)\" = \"$S\" ] && echo STTY2:same || echo STTY2:changed")
        pane = try waitFor(tmuxPath, "exit") { $0.contains("STTY2:") }
        XCTAssertTrue(pane.contains("EXITED:0"), pane)
        XCTAssertTrue(pane.contains("STTY2:same"), pane)
    }
}
