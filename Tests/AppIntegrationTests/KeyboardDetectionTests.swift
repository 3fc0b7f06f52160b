import Foundation
import ParleyTesting
import XCTest

/// Terminal and loop share one clock: on a terminal that ignores the kitty keyboard query, detection gives up
/// after its one-second timeout (it never did while the loop ticked the terminal on a clock of its own).
final class KeyboardDetectionTests: XCTestCase {
    func testDetectionTimesOutOnATerminalThatNeverAnswers() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-kbd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let log = home + "/parley.log"
        let env = isolatedEnvironment(home: home, ["TERM": "xterm-256color"])
        let term = try SilentTerminal([Binaries.parley, "--demo", "--no-audio", "--log-file", log], env: env)
        // Wait for the verdict in the log rather than for a fixed time.
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            term.read(for: 0.1)
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.contains("keyboard protocol:") { break }
        }
        term.type("q")
        XCTAssertEqual(term.waitForExit(timeout: 10), 0)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("keyboard protocol:") }) else {
            return XCTFail("detection never finished; log:\n\(text)")
        }
        XCTAssertTrue(line.contains("keyboard protocol: legacy"), String(line))
        let ms = Int(line.split(separator: " ").reversed().dropFirst().first ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(ms, 900, "the timeout is one second: \(line)")
        let restored = String(decoding: term.output.suffix(200), as: UTF8.self)
        XCTAssertTrue(restored.contains("\u{1b}[?1049l") || restored.contains("\u{1b}[?1049"), "the alternate screen is left")
    }
}
