import Foundation
import Live
import Synchronization
import ParleyTesting
import XCTest

@testable import App

/// Whether a process still runs (a zombie waiting for its reaper does not).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    return state != "Z" && state != "X"
}

final class ShellToolTests: XCTestCase {
    func testRunsAndCapturesOutput() async {
        let r = await ShellTool().run("echo hello; echo oops >&2; exit 3")
        XCTAssertEqual(r.output, "hello\noops\n")
        XCTAssertEqual(r.exitCode, 3)
    }

    func testCommandsGetDefaultSignalsEvenWhenParleyIgnoresSIGPIPE() async {
        signal(SIGPIPE, SIG_IGN)
        // With SIGPIPE ignored, `yes` would never stop once head exits.
        var tool = ShellTool()
        tool.timeLimit = 10
        let r = await tool.run("yes | head -n 2")
        XCTAssertFalse(r.timedOut)
        XCTAssertEqual(r.output, "y\ny\n")
    }

    /// A command sees its stdin, stdout and stderr and nothing of parley's: not a listening socket, a
    /// connection or a pipe opened without close-on-exec.
    func testCommandsInheritNoDescriptorOfParleys() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)  // no SOCK_CLOEXEC, as some libraries do
        XCTAssertGreaterThan(listener, 2)
        var pipeFDs: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&pipeFDs), 0)
        defer { for fd in [listener] + pipeFDs { close(fd) } }
        // `ls` lists its own directory descriptor too; the shell's `exec` keeps it the only extra one.
        let r = await ShellTool().run("exec ls /proc/self/fd")
        let fds = r.output.split(separator: "\n").compactMap { Int32($0) }
        XCTAssertEqual(fds.filter { $0 <= 2 }, [0, 1, 2])
        XCTAssertLessThanOrEqual(fds.filter { $0 > 2 }.count, 1, "only ls's own directory: \(fds)")
        // ls's directory is the lowest free number, 3, in a child that inherited nothing.
        for fd in [listener] + pipeFDs where fd != 3 { XCTAssertFalse(fds.contains(fd), "descriptor \(fd) leaked") }
    }

    func testCapsOutput() async {
        var tool = ShellTool()
        tool.maxOutputBytes = 1000
        let r = await tool.run("head -c 100000 /dev/zero | tr '\\0' a")
        XCTAssertEqual(r.output.utf8.count, 1000)
        XCTAssertTrue(r.truncated)
    }

    func testTimeLimitKillsTheWholeProcessGroup() async throws {
        var tool = ShellTool()
        tool.timeLimit = 0.5
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sleep-\(UUID())").path
        let r = await tool.run("sleep 30 & echo $! > \(pidFile); wait")
        XCTAssertTrue(r.timedOut)
        XCTAssertNotNil(r.response["error"])
        let pid = try XCTUnwrap(Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        eventually(timeout: 5, "the background child to be gone too") { !isRunning(pid) }
    }

    func testCancellationKillsTheCommand() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cancel-\(UUID())").path
        let task = Task { await ShellTool().run("sleep 30 & echo $! > \(pidFile); wait") }
        var pid: Int32?
        for _ in 0..<100 where pid == nil {
            try await Task.sleep(for: .milliseconds(50))
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let child = try XCTUnwrap(pid)
        task.cancel()
        let r = await task.value
        XCTAssertTrue(r.cancelled)
        eventually(timeout: 5, "the process to be gone afterwards") { !isRunning(child) }
    }
}
