@testable import Conversation
import Foundation
import XCTest

@testable import App

/// Issue 25, bad input: a transcript is read as far as it is whole, and the rest is named, never a crash.
final class TranscriptReaderTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-reader-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A conversation written the way parley writes one: a session record, a user turn and a reply.
    func saved() throws -> String {
        let store = try TranscriptStore(directory: dir)
        store.append(.session(model: "m", voice: "Puck"))
        store.append(.line(speaker: .user, text: "hello there", interrupted: false))
        store.append(.line(speaker: .model, text: "hi, what can I do", interrupted: false))
        store.close()
        return store.path
    }

    func append(_ bytes: [UInt8], to path: String) throws {
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        h.seekToEndOfFile()
        h.write(Data(bytes))
        h.closeFile()
    }

    func testAWholeFileReadsEveryRecordAndNamesNothing() throws {
        let reading = try TranscriptReader.read(try saved())
        XCTAssertEqual(reading.records.map(\.kind), [.session, .user, .model])
        XCTAssertEqual(reading.records.first?.session?.format, TranscriptRecord.format)
        XCTAssertEqual(reading.problems, [])
        XCTAssertNil(reading.unread)
    }

    func testATornLastLineIsNamedAndEverythingBeforeItIsRead() throws {
        let path = try saved()
        try append(Array(#"{"kind":"user","text":"half a sen"#.utf8), to: path)
        let reading = try TranscriptReader.read(path)
        XCTAssertEqual(reading.records.map(\.said?.text), [nil, "hello there", "hi, what can I do"])
        XCTAssertEqual(reading.problems, [.tornLastLine(line: 4, bytes: 33)])
        XCTAssertTrue(reading.unread?.contains("line 4 is cut short") == true, reading.unread ?? "")
    }

    func testAWholeLastRecordWithoutItsNewlineIsStillRead() throws {
        let path = try saved()
        try append(Array(#"{"kind":"user","text":"no newline"}"#.utf8), to: path)
        let reading = try TranscriptReader.read(path)
        XCTAssertEqual(reading.records.last?.said?.text, "no newline")
        XCTAssertEqual(reading.problems, [])
    }

    func testGarbageBytesAreSkippedAndNamedAndTheRecordsAroundThemRead() throws {
        let path = try saved()
        // Invalid UTF-8, a NUL, then a line of JSON that is not a record, then a good record.
        try append([0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x0A] + Array("[1,2,3]\n".utf8)
            + Array(#"{"kind":"model","text":"after the garbage"}"#.utf8) + [0x0A], to: path)
        let reading = try TranscriptReader.read(path)
        XCTAssertEqual(reading.records.count, 4)
        XCTAssertEqual(reading.records.last?.said?.text, "after the garbage")
        XCTAssertEqual(reading.problems, [.notARecord(line: 4), .notARecord(line: 5)])
    }

    func testAnUnknownKindIsSkippedAndNamed() throws {
        let path = try saved()
        try append(Array("{\"kind\":\"hologram\\u001b[31m\",\"text\":\"x\"}\n{\"kind\":\"user\",\"text\":\"still here\"}\n".utf8), to: path)
        let reading = try TranscriptReader.read(path)
        XCTAssertEqual(reading.records.last?.said?.text, "still here")
        XCTAssertEqual(reading.problems, [.unknownKind(line: 4, kind: "hologram\u{1B}[31m")])
        let message = try XCTUnwrap(reading.unread)
        XCTAssertTrue(message.contains("hologram"), message)
        XCTAssertFalse(message.contains("\u{1B}"), "outside text is made printable before it is shown: \(message)")
    }

    func testANewerFormatStopsTheReadingThereAndSaysHowMuchIsLeft() throws {
        let path = try saved()
        try append(Array("{\"format\":2,\"kind\":\"session\"}\n{\"kind\":\"user\",\"text\":\"from the future\"}\n".utf8), to: path)
        let reading = try TranscriptReader.read(path)
        XCTAssertEqual(reading.records.count, 3)
        XCTAssertFalse(reading.records.contains { $0.said?.text == "from the future" })
        XCTAssertEqual(reading.problems, [.newerFormat(line: 4, format: 2, linesLeft: 2)])
        XCTAssertTrue(reading.unread?.contains("newer parley (transcript format 2") == true, reading.unread ?? "")
    }

    func testAMissingFileIsATypedErrorNamingIt() {
        XCTAssertThrowsError(try TranscriptReader.read(dir + "/nope.jsonl")) { e in
            guard case ParleyError.file(let path, let problem) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(path, dir + "/nope.jsonl")
            XCTAssertTrue(problem.contains("No such file"), problem)
        }
    }

    func testRandomBytesNeverTrap() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let count = Int.random(in: 0..<600, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Sprinkle newlines and record-looking fragments so some lines get past the JSON parser.
            if round % 2 == 0 { bytes += Array("\n{\"kind\":\"user\",\"text\":\"ok\"}\n{\"kind\":".utf8) }
            let lines = TranscriptLines(path: "random", bytes: bytes)
            let reading = TranscriptReader.read(lines)
            var accounted = reading.records.count + reading.problems.count
            if case .newerFormat(_, _, let left)? = reading.problems.last { accounted += left - 1 }
            XCTAssertEqual(accounted, lines.count, "every line is read or named")
        }
    }
}
