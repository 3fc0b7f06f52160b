import Foundation
import ParleyTesting
import PulseAudio
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Issue 25: the recording is a whole file however parley ends — SIGTERM, SIGHUP, `q` — and while it is
/// stopped by Ctrl-Z (a kill then must not lose it). The real binary in tmux, `--demo --no-audio --record`.
final class RecordingExitTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-recexit-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/config/parley", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// parley recording in tmux (as `format`), its pid; returns when the header shows REC.
    func startParley(format: String) throws -> (Tmux, pid_t) {
        try "[recording]\nformat = \"\(format)\"\n".write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
        let env = isolatedEnvironment(home: home!, ["TERM": "tmux-256color", "PULSE_SERVER": "unix:/nonexistent/native"])
        let tmux = try Tmux(env: env)
        let pidFile = home + "/pid"
        try tmux.type("sh -c 'echo $$ > \(pidFile); exec \"$0\" --demo --no-audio --record' '\(Binaries.parley)'; echo EXITED:$?", enter: true)
        try tmux.wait(for: "● REC")
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { tmux.close(); throw XCTSkip("no pid") }
        return (tmux, pid)
    }

    /// The one recording in the data directory.
    func recording(_ ext: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: home + "/data/parley").filter { $0.hasSuffix("." + ext) }
        XCTAssertEqual(names.count, 1, "\(names)")
        let name = try XCTUnwrap(names.first)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home + "/data/parley/" + name.replacingOccurrences(of: "." + ext, with: ".jsonl")),
                      "beside its transcript")
        return home + "/data/parley/" + name
    }

    /// A WAV whose header says exactly what the file holds, in 24 kHz stereo; its length in seconds.
    func wholeWAV(_ path: String) throws -> Double {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertGreaterThanOrEqual(data.count, 44)
        let declared = data[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        XCTAssertEqual(declared, data.count - 44, "the header counts every byte of sound")
        let c = try WAVFile.parse(data, path: path)
        XCTAssertEqual(c.channels, 2)
        XCTAssertEqual(c.sampleRate, 24_000)
        return c.duration
    }

    static func state(_ pid: pid_t) -> Character? { JobControlTests.state(pid) }

    func testSIGTERMFinishesTheOggFile() throws {
        guard FFmpegLocator.ffprobe != nil, FFmpegLocator.ffmpeg != nil else { throw XCTSkip("ffmpeg/ffprobe not installed") }
        let (tmux, pid) = try startParley(format: "auto")
        defer { tmux.close() }
        let started = Date()
        try tmux.wait(for: "session 0:01")
        kill(pid, SIGTERM)
        try tmux.wait(for: "EXITED:")
        let probe = try FFmpegLocator.probe(try recording("ogg"))
        XCTAssertEqual(probe.channels, 2)
        XCTAssertEqual(probe.codec, "opus")
        XCTAssertGreaterThan(probe.duration, 0.5)
        XCTAssertLessThan(probe.duration, Date().timeIntervalSince(started) + 1)
    }

    func testSIGHUPFinishesTheWAVHeader() throws {
        let (tmux, pid) = try startParley(format: "wav")
        defer { tmux.close() }
        try tmux.wait(for: "session 0:01")
        kill(pid, SIGHUP)
        try tmux.wait(for: "EXITED:")
        XCTAssertGreaterThan(try wholeWAV(try recording("wav")), 0.5)
    }

    /// Ctrl-Z makes the file whole before the process stops; `fg` goes on recording in it and `q` finishes it.
    func testCtrlZLeavesAWholeFileAndFgGoesOnInIt() throws {
        let (tmux, pid) = try startParley(format: "wav")
        defer { tmux.close() }
        try tmux.wait(for: "session 0:01")
        try tmux.keys("C-z")
        XCTAssertTrue(eventually(timeout: 20, "parley to stop") { Self.state(pid) == "T" })
        let path = try recording("wav")
        let stopped = try wholeWAV(path)
        XCTAssertGreaterThan(stopped, 0.5, "what was recorded before Ctrl-Z is in the header while stopped")
        try tmux.type("fg", enter: true)
        try tmux.wait(for: "● REC")
        try tmux.wait(for: "session 0:03")
        try tmux.type("q")
        // (The shell said EXITED when the job stopped; it does not say it again.)
        XCTAssertTrue(eventually(timeout: 20, "parley to exit") { Self.state(pid) == nil || Self.state(pid) == "Z" })
        XCTAssertGreaterThan(try wholeWAV(path), stopped, "recorded on after fg, in the same file")
    }
}
