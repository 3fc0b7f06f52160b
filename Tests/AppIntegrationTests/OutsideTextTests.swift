@testable import Conversation
import Foundation
import ParleyTesting
import XCTest

@testable import App

/// Issue 11: outside text reaches stdout, stderr and exports with control characters visible (item 4),
/// non-finite numbers are refused with exit 64 (item 6), the log file is private and `ask --log-file` works (10).
final class OutsideTextTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-outside-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    func env() -> [String: String] {
        isolatedEnvironment(home: home!)
    }

    static let hostile = "A\u{1b}]0;pwned\u{07}B\u{1b}[2J\u{0}C\rD\u{202e}E\u{9b}F"

    static func hasRawControls(_ s: String) -> Bool {
        s.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7f...0x9f).contains($0.value) || $0.value == 0x202e }
    }

    func testNonFiniteNumbersExit64WithAMessage() throws {
        let cases: [[String]] = [
            ["ask", "--timeout", "nan", "hi"], ["ask", "--timeout", "inf", "hi"], ["ask", "--timeout", "1e308", "hi"],
            ["simulate", "--reply-delay", "nan"], ["simulate", "--drop-after", "nan"], ["simulate", "--go-away-after", "1e308"],
            ["simulate", "--go-away-time-left", "inf"],
        ]
        for args in cases {
            let r = try shell([Binaries.parley] + args, env: env(), timeout: 20)
            XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("finite") || r.err.contains("too long") || r.err.contains("negative"), "\(args): \(r.err)")
        }
    }

    func testExportShowsStoredEscapesVisibly() throws {
        let dir = home + "/data/parley"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let record = TranscriptRecord.line(speaker: .model, text: Self.hostile, interrupted: false)
        let tool = TranscriptRecord.tool(id: "t", name: "x\u{1b}[31m", arguments: "{}", state: .ok, result: Self.hostile, duration: nil)
        let lines = try [record, tool].map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n")
        try (lines + "\n").write(toFile: dir + "/session-2026-01-01T00-00-00.jsonl", atomically: true, encoding: .utf8)
        let r = try shell([Binaries.parley, "export"], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("A␛]0;pwned␇B␛[2J␀C␍D⟨U+202E⟩E⟨U+009B⟩F"), r.out)
        XCTAssertFalse(Self.hasRawControls(r.out), r.out)
    }

    func testAskPrintsTranscriptsVisiblyAndHonoursLogFile() throws {
        let simulator = try SimulatorProcess(["--reply-delay", "0", "--turn-complete-at-once"])
        defer { simulator.stop() }
        let log = home + "/ask.log"
        let r = try shell([Binaries.parley, "ask", "--endpoint", simulator.url, "--no-audio", "--log-file", log, Self.hostile], env: env(), timeout: 60)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("␛]0;pwned␇"), r.out)
        XCTAssertFalse(Self.hasRawControls(r.out), r.out)
        XCTAssertFalse(Self.hasRawControls(r.err), r.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: log), "ask --log-file is honoured")
    }

    func testAskPrintsCloseReasonsVisibly() throws {
        let simulator = try SimulatorProcess(["--reply-delay", "0", "--turn-complete-at-once", "--close-code", "4003", "--close-reason", Self.hostile])
        defer { simulator.stop() }
        let r = try shell([Binaries.parley, "ask", "--endpoint", simulator.url, "--no-audio", "hi"], env: env(), timeout: 60)
        // A close with an unknown code is retried (ask then finishes its turn); its reason is still shown.
        XCTAssertTrue(r.err.contains("A␛]0;pwned␇B"), r.err)
        XCTAssertFalse(Self.hasRawControls(r.err), r.err)
    }

    func testAnExistingLogFileBecomesPrivate() throws {
        let path = home + "/old.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644]))
        _ = try FileLogHandler.Sink(path: path)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old\n", "appended to, never truncated")
    }
}
