import Foundation
import Live
import LiveSimulator
import ParleyTesting
import PulseAudio
import XCTest

@testable import App

/// `ask --json`'s latency lines, against the simulator.
extension AskTests {
    /// The JSON objects `ask --json` printed, in order.
    func jsonLines(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try XCTUnwrap(object as? [String: Any], "not an object: \(line)")
        }
    }

    /// Checks the turn's latency line: first words and first audio timed and non-negative, nothing played.
    func checkTurnLatency(_ lines: [[String: Any]], file: StaticString = #filePath, line: UInt = #line) throws -> Double {
        let events = lines.compactMap { $0["event"] as? String }
        let at = try XCTUnwrap(events.firstIndex(of: "latency"), "no latency line in \(events)", file: file, line: line)
        XCTAssertEqual(events.filter { $0 == "latency" }.count, 1, "one line per answered turn", file: file, line: line)
        XCTAssertLessThan(try XCTUnwrap(events.firstIndex(of: "turnComplete")), at, "after the turn it times", file: file, line: line)
        let l = lines[at]
        let text = try XCTUnwrap(l["firstTextMs"] as? Double, "\(l)", file: file, line: line)
        let audio = try XCTUnwrap(l["firstAudioMs"] as? Double, "the simulator speaks its replies: \(l)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(text, 0, file: file, line: line)
        XCTAssertGreaterThanOrEqual(audio, 0, file: file, line: line)
        XCTAssertTrue(l["firstAudibleMs"] is NSNull, "ask plays nothing: \(l)", file: file, line: line)
        return text
    }

    func testAskJSONTimesTheTurnAndEndsWithASummary() async throws {
        let url = try await start(SimulatorFaults())
        let r = try ask(["--json", "--endpoint", url, "what time is it"])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try jsonLines(r.out)
        let text = try checkTurnLatency(lines)
        XCTAssertTrue(r.out.contains(#"{"event":"turnComplete"}"#), "the other lines are unchanged")
        XCTAssertEqual(lines.last?["event"] as? String, "usageSummary", "the usage summary ends the output")
        let summary = try XCTUnwrap(lines.first { $0["event"] as? String == "latencySummary" }, r.out)
        let firstText = try XCTUnwrap(summary["firstText"] as? [String: Any], "\(summary)")
        XCTAssertEqual(firstText["turns"] as? Double, 1)
        XCTAssertEqual(firstText["p50Ms"] as? Double, text, "one turn: its own figure is the median")
        XCTAssertEqual(firstText["p95Ms"] as? Double, text)
        let audible = try XCTUnwrap(summary["firstAudible"] as? [String: Any], "\(summary)")
        XCTAssertEqual(audible["turns"] as? Double, 0)
        XCTAssertTrue(audible["p50Ms"] is NSNull && audible["p95Ms"] is NSNull, "\(audible)")
    }

    func testAskJSONTimesASpokenQuestionFromItsLastChunk() async throws {
        let url = try await start(SimulatorFaults())
        let wav = home + "/question.wav"
        let tone = (0..<16_000).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        try WAVFile.write(tone, sampleRate: 16_000, to: URL(fileURLWithPath: wav))
        let r = try ask(["--json", "--endpoint", url, "--audio", wav])
        XCTAssertEqual(r.status, 0, r.err)
        _ = try checkTurnLatency(try jsonLines(r.out))
    }

    func testAskJSONTimesAQuestionAskedAgainFromTheResend() async throws {
        let url = try await start(SimulatorFaults(closeOnTurn: (0, .internalError, 1)))
        let r = try ask(["--json", "--endpoint", url, "what is the capital of France"])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try jsonLines(r.out)
        XCTAssertTrue(lines.contains { $0["event"] as? String == "turnResent" }, r.out)
        _ = try checkTurnLatency(lines)
    }

    func testAskWithoutJSONPrintsNoLatency() async throws {
        let url = try await start(SimulatorFaults())
        let r = try ask(["--endpoint", url, "hello"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertFalse(r.out.contains("latency"), r.out)
    }
}
