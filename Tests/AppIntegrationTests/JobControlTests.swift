import Foundation
import ParleyTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 item 9: stopping parley from outside or with Ctrl-Z gives the terminal back and `fg` repaints it;
/// SIGQUIT restores the terminal and prints no backtrace over it.
final class JobControlTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-job-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// parley --demo in tmux, its pid written to a file; returns the pane and the pid.
    func startParley() throws -> (Tmux, pid_t) {
        let env = isolatedEnvironment(home: home!, ["TERM": "tmux-256color", "PULSE_SERVER": "unix:/nonexistent/native"])
        let tmux = try Tmux(env: env)
        let pidFile = home + "/pid"
        try tmux.type("sh -c 'echo $$ > \(pidFile); exec \"$0\" --demo --no-audio' '\(Binaries.parley)'; echo EXITED:$?", enter: true)
        try tmux.wait(for: "DEMO")
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { tmux.close(); throw XCTSkip("no pid") }
        return (tmux, pid)
    }

    func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        XCTFail("timed out waiting for \(what)")
    }

    /// q quits the resumed parley. (The shell already ran `; echo EXITED` when the job stopped.)
    func quit(_ tmux: Tmux, _ pid: pid_t) throws {
        try tmux.type("q")
        try waitFor("parley to exit") { Self.state(pid) == nil || Self.state(pid) == "Z" }
        try waitFor("the normal screen after quitting") { try !tmux.alternateScreen() }
    }

    static func state(_ pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].first
    }

    /// Stops parley with `stop`, checks the terminal is the shell's, then `fg` and checks it is parley's again.
    func stopAndResume(_ stop: (Tmux, pid_t) throws -> Void) throws {
        let (tmux, pid) = try startParley()
        defer { tmux.close() }
        try stop(tmux, pid)
        try waitFor("parley to stop") { Self.state(pid) == "T" }
        try waitFor("the normal screen") { try !tmux.alternateScreen() }
        try tmux.type("fg", enter: true)
        try waitFor("the alternate screen again") { try tmux.alternateScreen() }
        try tmux.wait(for: "DEMO")
        try quit(tmux, pid)
    }

    func testSIGTSTPFromOutsideGivesTheTerminalBackAndFgRepaints() throws {
        try stopAndResume { _, pid in kill(pid, SIGTSTP) }
    }

    func testCtrlZStopsAndFgRepaints() throws {
        try stopAndResume { tmux, _ in try tmux.keys("C-z") }
    }

    func testSIGQUITRestoresTheTerminalWithoutABacktrace() throws {
        let (tmux, pid) = try startParley()
        defer { tmux.close() }
        kill(pid, SIGQUIT)
        let screen = try tmux.wait(for: "EXITED:")
        XCTAssertFalse(try tmux.alternateScreen())
        XCTAssertFalse(screen.contains("Backtrace") || screen.contains("Crash") || screen.contains("Thread 0"), screen)
    }
}
