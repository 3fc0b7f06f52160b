import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A private tmux server with one pane, for driving a full-screen program like a person would. The one
/// tmux driver of the test suites.
public final class Tmux {
    /// Named after the run when scripts/test.sh sets `PARLEY_TEST_TMUX_PREFIX`, so its cleanup of servers a
    /// crashed test left behind kills only its own run's and not another run's on the same machine.
    public let socket = "\(ProcessInfo.processInfo.environment["PARLEY_TEST_TMUX_PREFIX"] ?? "parley-test")-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    public let session = "t"

    /// Starts the server with a pane of `width`×`height` running `command` (a shell by default).
    public init(width: Int = 100, height: Int = 30, env: [String: String] = [:], command: [String] = ["sh"]) throws {
        guard let binary = Self.path else { throw XCTSkip("tmux is not installed") }
        var args = [binary, "-u", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)"]
        for (k, v) in env { args += ["-e", "\(k)=\(v)"] }
        args += command
        let r = try run(args, timeout: 10)
        guard r.status == 0 else { throw XCTSkip("tmux could not start: \(r.err)") }
        try tmux("set-option", "-g", "status", "off")
        try tmux("resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)")
    }

    deinit { close() }

    static var path: String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private func run(_ args: [String], timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "TMUX")
        if env["LANG"] == nil { env["LANG"] = "C.UTF-8" }
        return try shell(args, env: env, timeout: timeout)
    }

    /// Runs a tmux command on this server.
    @discardableResult
    public func tmux(_ args: String...) throws -> String {
        try run([Self.path ?? "tmux", "-L", socket] + args).out
    }

    /// Kills this tmux server (and what runs in it). Call it in a `defer`; deinit is the fallback.
    public func close() {
        _ = try? tmux("kill-server")
        let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(dir)/tmux-\(getuid())/\(socket)")
    }

    /// Types text literally, then Enter when asked.
    public func type(_ text: String, enter: Bool = false) throws {
        try tmux("send-keys", "-t", session, "-l", text)
        if enter { try keys("Enter") }
    }

    public func keys(_ names: String...) throws {
        _ = try run([Self.path ?? "tmux", "-L", socket, "send-keys", "-t", session] + names)
        // A key right after Esc would read as Alt-key, as in any terminal program: pause like a person.
        if names.last == "Escape" { usleep(300_000) }
    }

    public func screen() throws -> String { try tmux("capture-pane", "-p", "-t", session) }

    public func resize(width: Int, height: Int) throws {
        try tmux("resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)")
    }

    /// Whether the pane is in the alternate screen (a full-screen program still owns it).
    public func alternateScreen() throws -> Bool {
        try tmux("display-message", "-p", "-t", session, "#{alternate_on}").hasPrefix("1")
    }

    /// Waits until the screen satisfies `condition`; returns the last screen.
    @discardableResult
    public func wait(timeout: Double = 20, for what: String, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what); screen:\n\(last)")
        return last
    }

    @discardableResult
    public func wait(timeout: Double = 20, for text: String, _ why: String? = nil) throws -> String {
        try wait(timeout: timeout, for: why ?? "\"\(text)\"") { $0.contains(text) }
    }
}
