import Foundation
import ParleyTesting
import XCTest

/// parley driven like a person would: real keystrokes in tmux, a private PulseAudio daemon with null sinks
/// standing in for the microphone and the speaker, and the simulator standing in for Gemini.
final class EndToEndTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: home)
    }

    /// An environment with no API key and every XDG directory inside the test's home.
    func env(_ extra: [String: String] = [:]) -> [String: String] {
        isolatedEnvironment(home: home!, ["TERM": "tmux-256color"].merging(extra) { $1 })
    }

    func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    // MARK: - without a terminal

    func testNoKeyGivesAClearMessageAndLeavesTheTerminalAlone() throws {
        let r = try shell([Binaries.parley], env: env())
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.err.contains("GEMINI_API_KEY"), r.err)
        XCTAssertTrue(r.err.contains("parley --demo"), r.err)
        XCTAssertEqual(r.out, "")
        XCTAssertFalse((r.out + r.err).contains("\u{1b}"), "no escape sequences: the terminal is untouched")
    }

    func testBadFlagExits64WithUsage() throws {
        let r = try shell([Binaries.parley, "--frobnicate"], env: env())
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.contains("Usage"), r.err)
        let bad = try shell([Binaries.parley, "--voice", "Nobody", "--demo"], env: env())
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.err.contains("parley voices"), bad.err)
    }

    func testPrintConfigMergesFlagsAndRedactsTheKey() throws {
        try FileManager.default.createDirectory(atPath: home + "/config/parley", withIntermediateDirectories: true)
        try "voice = \"Kore\"\napi_key = \"AIzaTOPSECRET\"\n".write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
        let r = try shell([Binaries.parley, "--print-config", "--mode", "open"], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("voice = \"Kore\""))
        XCTAssertTrue(r.out.contains("mode = \"open\""))
        XCTAssertFalse(r.out.contains("TOPSECRET"))
        try "mode = 5\n".write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
        let bad = try shell([Binaries.parley, "--print-config"], env: env())
        XCTAssertEqual(bad.status, 78)
        XCTAssertTrue(bad.err.contains("config.toml:1: mode:"), bad.err)
    }

    func testVoicesListsAllThirty() throws {
        let r = try shell([Binaries.parley, "voices"], env: env())
        XCTAssertEqual(r.out.split(separator: "\n").count, 30)
        XCTAssertTrue(r.out.contains("Kore") && r.out.contains("Firm"))
    }

    // MARK: - in a terminal

    func testNoPulseAudioRunsTextOnlyWithABanner() throws {
        let tmux = try Tmux(env: env(["PULSE_SERVER": "unix:/nonexistent/parley/native"]))
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo; echo EXITED:$?", enter: true)
        try tmux.wait(for: "no sound — text only")
        try tmux.wait(for: "no PulseAudio server")
        try tmux.keys("Tab")
        try tmux.type("hello from a text-only terminal", enter: true)
        try tmux.wait(for: "turn 1 of our")
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testDemoConversationWithPushToTalkVoiceSwitchTypingHelpAndQuit() async throws {
        let audio = try TestAudio.fromEnvironment()
        try audio.ensureSink("parley_mic")
        try audio.ensureSink("parley_null")
        let wav = home + "/question.wav"
        let speak = try shell(["espeak-ng", "-w", wav, "hello, can you hear me?"])
        guard speak.status == 0 else { throw XCTSkip("espeak-ng is not installed") }

        let tmux = try Tmux(env: env(["PULSE_SERVER": audio.server]))
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo --mic parley_mic.monitor --speaker parley_null; echo EXITED:$?", enter: true)
        try tmux.wait(for: "live and DEMO in the header") { $0.contains("live") && $0.contains("DEMO") }
        XCTAssertTrue(try tmux.alternateScreen())

        // Push-to-talk (tmux has no kitty protocol: a tap toggles) while the WAV plays into the mic.
        try tmux.type(" ")
        try tmux.wait(for: "talking indicator") { $0.contains("talking") || $0.contains("mic open") || $0.contains("● ") }
        try audio.play(wav, to: "parley_mic")
        try tmux.type(" ")
        let recording = Task.detached { try audio.record("parley_null", seconds: 5) }
        try tmux.wait(for: "Hello, can you hear me?")
        let replying = try tmux.wait(for: "the model's reply") { $0.contains("turn 1 of our") }
        _ = replying
        // The speaker meter moves while the reply plays.
        try tmux.wait(timeout: 8, for: "a speaker level above the floor") { screen in
            guard let line = screen.split(separator: "\n").first(where: { $0.contains("spk") }) else { return false }
            return Self.dB(in: String(line)).map { $0 > -60 } ?? false
        }
        let puck = try await recording.value
        let pitchPuck = pitch(puck)
        XCTAssertNotNil(pitchPuck, "the reply was heard on the speaker sink")

        // Voice menu: choose Kore; the header says so and the next reply sounds different.
        try tmux.type("v")
        try tmux.wait(for: "Voice (30)")
        try tmux.type("kore")
        try tmux.keys("Enter")
        try tmux.wait(for: "voice Kore")
        try tmux.wait(for: "voice changed to Kore")
        try tmux.keys("Tab")
        try tmux.type("tell me about the sea", enter: true)
        let recording2 = Task.detached { try audio.record("parley_null", seconds: 5) }
        try tmux.wait(for: "turn 2 of our")
        try tmux.keys("Escape")
        let kore = try await recording2.value
        let pitchKore = pitch(kore)
        if let a = pitchPuck, let b = pitchKore {
            XCTAssertGreaterThan(abs(a - b) / min(a, b), 0.05, "Puck at \(a) Hz, Kore at \(b) Hz")
        } else {
            XCTFail("no pitch: Puck \(String(describing: pitchPuck)), Kore \(String(describing: pitchKore))")
        }

        // Help, then quit: the terminal is a normal shell again.
        try tmux.type("?")
        try tmux.wait(for: "Keys")
        try tmux.type("x")
        try tmux.wait(for: "help closed") { !$0.contains("any key closes") }
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
        XCTAssertFalse(try tmux.alternateScreen())
        try tmux.type("stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | sort | tr '\\n' ' '; echo", enter: true)
        try tmux.wait(for: "echo icanon", "the tty is back in cooked mode with echo")

        // The session was saved as it went.
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: home + "/data/parley")) ?? []
        XCTAssertEqual(sessions.filter { $0.hasSuffix(".jsonl") }.count, 1, "\(sessions)")
    }

    func testGoAwayMidConversationResumesAndLosesNothing() throws {
        let sim = try SimulatorProcess(["--go-away-after", "4", "--go-away-time-left", "3"])
        defer { sim.stop() }
        let port = sim.port

        let tmux = try Tmux(env: env())
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --no-audio --endpoint ws://127.0.0.1:\(port); echo EXITED:$?", enter: true)
        try tmux.wait(for: "live")
        try tmux.keys("Tab")
        try tmux.type("first message", enter: true)
        try tmux.wait(for: "turn 1 of our")
        try tmux.wait(timeout: 20, for: "the hand-over") { $0.contains("conversation resumed") }
        try tmux.type("second message", enter: true)
        let screen = try tmux.wait(for: "turn 2 of our")
        XCTAssertTrue(screen.contains("first message"))
        XCTAssertTrue(screen.contains("second message"))
        XCTAssertTrue(screen.contains("turn 1 of our"), "nothing lost in the transcript")
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testShellCommandsRunOnlyAfterTheUserSaysYes() throws {
        try FileManager.default.createDirectory(atPath: home + "/config/parley", withIntermediateDirectories: true)
        try "[tools]\nrun_shell_command = true\n".write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
        let marker = home + "/ran"
        let tmux = try Tmux(env: env(["PULSE_SERVER": "unix:/nonexistent/native"]))
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo --no-audio; echo EXITED:$?", enter: true)
        try tmux.wait(for: "DEMO")
        try tmux.keys("Tab")
        try tmux.type(#"call run_shell_command {"command":"touch \#(marker)"}"#, enter: true)
        try tmux.wait(for: "Gemini wants to run run_shell_command")
        try tmux.keys("Enter")  // the default is no
        try tmux.wait(for: "denied")
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "a denied command never runs")
        try tmux.type(#"call run_shell_command {"command":"touch \#(marker)"}"#, enter: true)
        try tmux.wait(for: "Gemini wants to run run_shell_command")
        try tmux.type("y")
        try tmux.wait(for: "a file made by the confirmed command") { _ in FileManager.default.fileExists(atPath: marker) }
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testResizeRelaysOutAndTinyTerminalsGetAMessage() throws {
        let tmux = try Tmux(width: 80, height: 24, env: env(["PULSE_SERVER": "unix:/nonexistent/native"]))
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo --no-audio; echo EXITED:$?", enter: true)
        try tmux.wait(for: "DEMO")
        try tmux.resize(width: 30, height: 10)
        try tmux.wait(for: "the too-small message") { $0.lowercased().contains("too small") }
        try tmux.resize(width: 120, height: 40)
        try tmux.wait(for: "the layout again") { $0.contains("DEMO") && !$0.lowercased().contains("too small") }
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    static func dB(in line: String) -> Double? {
        guard let r = line.range(of: #"-?\d+(\.\d+)? ?dB"#, options: .regularExpression) else { return nil }
        return Double(line[r].filter { $0 == "-" || $0 == "." || $0.isNumber })
    }
}
