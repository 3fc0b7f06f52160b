@testable import Conversation
import Foundation
import ParleyTesting
import ParleyTime
import XCTest

@testable import App

/// Issue 25's scale goal, as numbers (PARLEY_BENCH=1): 1,000 saved conversations and 100,000 records;
/// `history` should list in under 200 ms and `search` answer in under 1 s.
final class HistoryBenchmarkTests: XCTestCase {
    func testHistoryAtScale() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1") }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-history-bench-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let dir = home + "/data/parley"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)

        let conversations = 1_000, recordsEach = 100
        let vocabulary = ["weather", "tomorrow", "recipe", "train", "meeting", "garden", "python", "music", "river", "budget"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = 0
        for c in 0..<conversations {
            let start = 1_780_000_000 + Double(c) * 3_600
            var out = Data()
            var session = TranscriptRecord.session(model: "gemini-3.8-live", voice: "Puck")
            session.time = stamp(start)
            out.append(try encoder.encode(session) + [0x0A])
            for i in 1..<recordsEach {
                var r = TranscriptRecord.line(
                    speaker: i % 2 == 1 ? .user : .model,
                    text: "turn \(i) about the \(vocabulary[(c + i) % vocabulary.count]) and what to do next with it, said aloud"
                        + (c == 737 && i == 42 ? " zanzibar" : ""),
                    interrupted: false)
                r.time = stamp(start + Double(i) * 5)
                out.append(try encoder.encode(r) + [0x0A])
            }
            bytes += out.count
            try out.write(to: URL(fileURLWithPath: dir + "/session-\(String(format: "%04d", c)).jsonl"))
        }
        print("history bench: \(conversations) conversations, \(conversations * recordsEach) records, \(bytes / 1_000_000) MB")

        func time(_ label: String, runs: Int = 3, _ body: () throws -> Void) rethrows {
            var best = Double.infinity
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                try body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            print(String(format: "history bench: %@ %.1f ms (best of %d)", label, best, runs))
        }
        time("list, no index (first run)", runs: 1) {
            XCTAssertEqual(HistoryIndex.summaries(in: dir).count, conversations)
        }
        time("list, with the index, in-process") { XCTAssertEqual(HistoryIndex.summaries(in: dir).count, conversations) }
        time("search a rare word, in-process") { XCTAssertEqual(TranscriptSearch(["zanzibar"]).search(directory: dir).count, 1) }
        time("search a common word (9,900 matches), in-process") {
            XCTAssertEqual(TranscriptSearch(["weather"]).search(directory: dir).count, 9_900)
        }
        let env = isolatedEnvironment(home: home, ["TZ": "UTC"])
        try time("`parley --version` (process start alone)") { _ = try shell([Binaries.parley, "--version"], env: env) }
        try FileManager.default.removeItem(atPath: dir + "/" + HistoryIndex.fileName)
        try time("`parley history` (process, no index yet)", runs: 1) { _ = try shell([Binaries.parley, "history"], env: env) }
        try time("`parley history` (process, to a pipe)") {
            let r = try shell([Binaries.parley, "history"], env: env)
            XCTAssertEqual(r.status, 0, r.err)
        }
        try time("`parley history search zanzibar` (process)") {
            let r = try shell([Binaries.parley, "history", "search", "zanzibar"], env: env)
            XCTAssertTrue(r.out.contains("zanzibar"), r.err)
        }
        try time("`parley history search weather` (process, 9,900 matches)", runs: 1) {
            let r = try shell([Binaries.parley, "history", "search", "weather"], env: env)
            XCTAssertEqual(r.status, 0, r.err)
        }
    }

    private func stamp(_ seconds: Double) -> String { Timestamp.iso8601UTC(secondsSince1970: seconds) }
}
