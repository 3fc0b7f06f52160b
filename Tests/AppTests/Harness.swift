import Foundation
import XCTest

@testable import App

/// Finds the built `parley` binary next to the test bundle (or in `PARLEY_BIN_DIR`).
enum Binaries {
    static var dir: String {
        if let d = ProcessInfo.processInfo.environment["PARLEY_BIN_DIR"], !d.isEmpty { return d }
        // The test runner lives in the build products directory, or inside a bundle there.
        var url = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("parley").path) { return url.path }
            url.deleteLastPathComponent()
        }
        return Bundle.main.bundleURL.path
    }
    static var parley: String { dir + "/parley" }
}

/// Runs a command to completion and returns its status and output. Spawned directly with output to files:
/// Foundation's `Process` detects exit through a descriptor that a daemon (tmux's server) would inherit.
@discardableResult
func shell(_ args: [String], env: [String: String]? = nil, timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
    let dir = FileManager.default.temporaryDirectory.path
    let tag = UUID().uuidString
    let outPath = "\(dir)/parley-sh-\(tag).out", errPath = "\(dir)/parley-sh-\(tag).err"
    defer {
        unlink(outPath)
        unlink(errPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let environment = (env ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // A daemon (tmux's server) spawned with a test thread's blocked signals could never shut down.
    var attributes = posix_spawnattr_t()
    SpawnAttributes.clean(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var pid: pid_t = 0
    let rc = posix_spawnp(&pid, args[0], &actions, &attributes, &argv, &envp)
    guard rc == 0 else { throw NSError(domain: "spawn", code: Int(rc), userInfo: [NSLocalizedDescriptionKey: "cannot run \(args[0])"]) }
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(timeout)
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            break
        }
        usleep(10_000)
    }
    let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (code, out, err)
}

/// A private tmux server with one pane running a shell, for driving parley like a person would.
final class Tmux {
    let socket = "parley-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let session = "t"

    init(width: Int = 100, height: Int = 30, env: [String: String] = [:]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw XCTSkip("tmux is not installed") }
        var args = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)"]
        for (k, v) in env { args += ["-e", "\(k)=\(v)"] }
        args += ["sh"]
        let r = try shell(args, timeout: 10)
        guard r.status == 0 else { throw XCTSkip("tmux could not start: \(r.err)") }
        try shell(["tmux", "-L", socket, "set-option", "-g", "status", "off"])
        try shell(["tmux", "-L", socket, "resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    deinit { close() }

    /// Kills this tmux server (and what runs in it). Call it in a `defer`; deinit is the fallback.
    func close() { _ = try? shell(["tmux", "-L", socket, "kill-server"]) }

    /// Types text literally, then Enter when asked.
    func type(_ text: String, enter: Bool = false) throws {
        try shell(["tmux", "-L", socket, "send-keys", "-t", session, "-l", text])
        if enter { try keys("Enter") }
    }

    func keys(_ names: String...) throws {
        try shell(["tmux", "-L", socket, "send-keys", "-t", session] + names)
        // A key right after Esc would read as Alt-key, as in any terminal program: pause like a person.
        if names.last == "Escape" { usleep(300_000) }
    }

    func screen() throws -> String {
        try shell(["tmux", "-L", socket, "capture-pane", "-p", "-t", session]).out
    }

    func resize(width: Int, height: Int) throws {
        try shell(["tmux", "-L", socket, "resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// Whether the pane is in the alternate screen (a full-screen program still owns it).
    func alternateScreen() throws -> Bool {
        try shell(["tmux", "-L", socket, "display-message", "-p", "-t", session, "#{alternate_on}"]).out.hasPrefix("1")
    }

    /// Waits until the screen satisfies `condition`; returns the last screen.
    @discardableResult
    func wait(timeout: Double = 20, for what: String, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(100_000)
        }
        XCTFail("timed out waiting for \(what); screen:\n\(last)")
        return last
    }

    @discardableResult
    func wait(timeout: Double = 20, for text: String, _ why: String? = nil) throws -> String {
        try wait(timeout: timeout, for: why ?? "\"\(text)\"") { $0.contains(text) }
    }
}

/// A private PulseAudio daemon's extra devices for a test: a sink whose monitor is the mic.
struct TestAudio {
    let server: String

    static func fromEnvironment() throws -> TestAudio {
        guard let s = ProcessInfo.processInfo.environment["PARLEY_TEST_PULSE_SERVER"], !s.isEmpty else {
            throw XCTSkip("set PARLEY_TEST_PULSE_SERVER (scripts/pulse-daemon.sh start DIR); scripts/test.sh does")
        }
        return TestAudio(server: s)
    }

    func pactl(_ args: String...) throws -> String {
        try shell(["env", "PULSE_SERVER=\(server)", "pactl"] + args).out
    }

    /// A null sink named `name`; what is played to it is heard on `name.monitor`.
    func ensureSink(_ name: String) throws {
        if try pactl("list", "short", "sinks").contains(name) { return }
        _ = try pactl("load-module", "module-null-sink", "sink_name=\(name)")
    }

    /// Plays a WAV file into a sink and waits until it has played.
    func play(_ wav: String, to sink: String) throws {
        let r = try shell(["env", "PULSE_SERVER=\(server)", "paplay", "--device=\(sink)", wav], timeout: 30)
        XCTAssertEqual(r.status, 0, r.err)
    }

    /// Records a sink's monitor as 16 kHz mono s16le for `seconds`.
    func record(_ sink: String, seconds: Double) throws -> [Int16] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID()).raw").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = try shell(["sh", "-c", "PULSE_SERVER=\(server) timeout \(seconds) parec --device=\(sink).monitor --format=s16le --rate=16000 --channels=1 --raw > \(file); true"], timeout: seconds + 10)
        XCTAssertEqual(r.status, 0, r.err)
        let data = FileManager.default.contents(atPath: file) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

/// The fundamental frequency of voiced audio, by autocorrelation over the loudest stretch (Hz).
func pitch(_ samples: [Int16], rate: Double = 16000) -> Double? {
    let x = samples.map { Double($0) }
    guard x.count > 4000 else { return nil }
    // Use the loudest 0.5 s window.
    let win = 8000
    var best = 0, bestEnergy = 0.0
    var i = 0
    while i + win <= x.count {
        let e = x[i..<(i + win)].reduce(0) { $0 + $1 * $1 }
        if e > bestEnergy { bestEnergy = e; best = i }
        i += 1000
    }
    guard bestEnergy > 0 else { return nil }
    let w = Array(x[best..<(best + win)])
    let minLag = Int(rate / 400), maxLag = Int(rate / 60)
    var bestLag = 0, bestCorr = -Double.infinity
    for lag in minLag...maxLag {
        var c = 0.0
        for j in 0..<(win - lag) { c += w[j] * w[j + lag] }
        if c > bestCorr { bestCorr = c; bestLag = lag }
    }
    return bestLag > 0 ? rate / Double(bestLag) : nil
}
