import Foundation
import LiveSimulator
import ParleyTesting
import PulseAudio
import XCTest

@testable import App

/// `parley doctor` run for real: against the simulator, a local endpoint, a closed port, the test sound server, an
/// MCP server and a terminal. Never against the internet. (Slow suite: subprocesses, daemons, tmux.)
final class DoctorCommandTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-doctor-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// No key, no sound server unless given, every XDG directory in the test's home.
    func env(_ extra: [String: String] = [:]) -> [String: String] {
        let h: String = home
        let own = ["TERM": "xterm-256color", "XDG_RUNTIME_DIR": h + "/run", "PULSE_SERVER": "unix:" + h + "/no-server"]
        return isolatedEnvironment(home: h, own.merging(extra) { $1 })
    }

    struct Finding: Decodable {
        var area: String
        var item: String
        var status: String
        var detail: String
        var fix: String?
    }

    struct Output: Decodable {
        var ok: Bool
        var worst: String
        var checks: [Finding]
    }

    func doctor(_ args: [String], env: [String: String]) throws -> (status: Int32, report: Output, raw: String) {
        let r = try shell([Binaries.parley, "doctor", "--json"] + args, env: env, timeout: 60)
        let report = try JSONDecoder().decode(Output.self, from: Data(r.out.utf8))
        return (r.status, report, r.out + r.err)
    }

    func status(_ o: Output, _ area: String, _ item: String) -> String? {
        o.checks.first { $0.area == area && $0.item == item }?.status
    }

    // MARK: the command

    func testDemoChecksTheWholeNetworkPathAgainstTheSimulatorAndExitsZero() throws {
        let r = try doctor(["--demo", "--no-audio"], env: env())
        XCTAssertEqual(r.status, 0, r.raw)
        XCTAssertTrue(r.report.ok)
        for item in ["DNS", "TCP", "WebSocket", "setup"] { XCTAssertEqual(status(r.report, "network", item), "OK", "\(item): \(r.raw)") }
        XCTAssertEqual(status(r.report, "network", "TLS"), "SKIP", "ws:// on loopback")
        XCTAssertEqual(status(r.report, "key", "API key"), "OK", "no key needed with --demo")
        XCTAssertEqual(status(r.report, "config", "file"), "OK")
        XCTAssertEqual(status(r.report, "terminal", "keyboard"), "SKIP", "never queried without a terminal")
        XCTAssertFalse(r.raw.contains("\u{1b}"), "nothing was written to a terminal")
    }

    func testLocalEndpointIsReachedAndTheKeyNeverShown() async throws {
        let simulator = LiveSimulator(options: SimulatorOptions())
        let port = try await simulator.start()
        let key = "AIza" + String(repeating: "k", count: 35)
        let r = try doctor(["--endpoint", "ws://127.0.0.1:\(port)", "--no-audio"], env: env(["GEMINI_API_KEY": key]))
        try await simulator.stop()
        XCTAssertEqual(r.status, 0, r.raw)
        XCTAssertEqual(status(r.report, "network", "setup"), "OK", r.raw)
        let keyFinding = try XCTUnwrap(r.report.checks.first { $0.area == "key" })
        XCTAssertEqual(keyFinding.status, "OK")
        XCTAssertTrue(keyFinding.detail.contains("GEMINI_API_KEY"), keyFinding.detail)
        XCTAssertFalse(r.raw.contains(key), "the key's value never appears")
    }

    func testClosedPortFailsAtTCPSkipsTheRestAndExitsOne() throws {
        let port = try Self.closedPort()
        let r = try doctor(["--endpoint", "ws://127.0.0.1:\(port)", "--no-audio"], env: env())
        XCTAssertEqual(r.status, 1, r.raw)
        XCTAssertFalse(r.report.ok)
        XCTAssertEqual(r.report.worst, "FAIL")
        XCTAssertEqual(status(r.report, "network", "DNS"), "OK")
        let tcp = try XCTUnwrap(r.report.checks.first { $0.item == "TCP" })
        XCTAssertEqual(tcp.status, "FAIL")
        XCTAssertTrue(tcp.detail.contains("refused"), tcp.detail)
        XCTAssertNotNil(tcp.fix)
        for item in ["WebSocket", "setup"] { XCTAssertEqual(status(r.report, "network", item), "SKIP") }
    }

    func testTextReportPutsTheFixUnderTheProblem() throws {
        let port = try Self.closedPort()
        let r = try shell([Binaries.parley, "doctor", "--endpoint", "ws://127.0.0.1:\(port)", "--no-audio"], env: env(), timeout: 60)
        XCTAssertEqual(r.status, 1)
        let lines = r.out.split(separator: "\n").map(String.init)
        let tcp = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("FAIL") && $0.contains("TCP") }, r.out)
        XCTAssertTrue(lines[tcp + 1].contains("→"), r.out)
        XCTAssertTrue(r.out.contains("failed"), r.out)
    }

    func testInATerminalItMeasuresTheSizeAndAsksForTheKittyProtocol() throws {
        // tmux answers the device-attributes query but not the kitty one (and sets TMUX in its panes): the check
        // must settle, say so, and leave the terminal as it found it.
        let t = try Tmux(width: 110, height: 32, env: env())
        defer { t.close() }
        try t.type("\(Binaries.parley) doctor --demo --no-audio; echo doctor-exit=$?", enter: true)
        let screen = try t.wait(for: "doctor-exit=0")
        XCTAssertTrue(screen.contains("OK    terminal  size       110×32"), screen)
        XCTAssertTrue(screen.contains("WARN  terminal  keyboard   no kitty keyboard protocol (tmux"), screen)
        XCTAssertFalse(screen.contains("[?u") || screen.contains("?1;2c"), "no query or reply leaks onto the screen:\n\(screen)")
    }

    func testNoSoundServerFailsWithAHint() throws {
        let r = try doctor(["--demo"], env: env())
        XCTAssertEqual(r.status, 1)
        let server = try XCTUnwrap(r.report.checks.first { $0.area == "sound" })
        XCTAssertEqual(server.status, "FAIL")
        XCTAssertTrue(server.fix?.contains("--no-audio") == true, "\(server)")
    }

    func testSoundServerDefaultsAndMicLevel() throws {
        guard let server = ProcessInfo.processInfo.environment["PARLEY_TEST_PULSE_SERVER"], !server.isEmpty else {
            throw XCTSkip("set PARLEY_TEST_PULSE_SERVER (scripts/pulse-daemon.sh start)")
        }
        let r = try doctor(["--demo"], env: env(["PULSE_SERVER": server]))
        let found = Dictionary(uniqueKeysWithValues: r.report.checks.filter { $0.area == "sound" }.map { ($0.item, $0) })
        XCTAssertEqual(found["server"]?.status, "OK", r.raw)
        XCTAssertTrue(found["server"]?.detail.hasPrefix("PulseAudio") == true || found["server"]?.detail.hasPrefix("PipeWire") == true)
        XCTAssertTrue(found["speaker"]?.detail.contains("(default)") == true, r.raw)
        // The test server has only a null sink: its monitor is the default source and it records silence.
        XCTAssertEqual(found["microphone"]?.status, "WARN", r.raw)
        XCTAssertTrue(found["microphone"]?.fix?.contains("--monitors") == true, r.raw)
        let level = try XCTUnwrap(found["mic level"], r.raw)
        XCTAssertTrue(level.detail.contains("dBFS"), level.detail)
    }

    func testBrokenConfigFailsAndSaysWhere() throws {
        try FileManager.default.createDirectory(atPath: home + "/config/parley", withIntermediateDirectories: true)
        try "mode = \"loud\"\n".write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
        let r = try doctor(["--demo", "--no-audio"], env: env())
        XCTAssertEqual(r.status, 1)
        let config = try XCTUnwrap(r.report.checks.first { $0.area == "config" })
        XCTAssertEqual(config.status, "FAIL")
        XCTAssertTrue(config.detail.contains("config.toml:1"), config.detail)
    }

    func testMCPServersAreStartedListedAndStopped() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 is needed for the test MCP server") }
        let script = home + "/tiny-mcp.py"
        try MCPServersTests.server.write(toFile: script, atomically: true, encoding: .utf8)
        let checks = await DoctorChecks.mcp([
            MCPServerConfig(name: "tiny", command: "python3", args: [script]),
            MCPServerConfig(name: "ghost", command: "/nonexistent/mcp-server"),
        ], timeout: 20)
        XCTAssertEqual(checks.map(\.item), ["tiny", "ghost"])
        XCTAssertEqual(checks[0].status, .ok)
        XCTAssertEqual(checks[0].detail, "2 tools: broken, shout")
        XCTAssertEqual(checks[1].status, .fail)
        XCTAssertTrue(checks[1].fix?.contains("/nonexistent/mcp-server") == true, "\(checks[1])")
        let none = await DoctorChecks.mcp([])
        XCTAssertEqual(none.first?.status, .skip)
    }

    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw XCTSkip("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
