@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// A transcript's lines are the format every parley has written: the typed record reads them and writes them
/// back byte for byte (the lines below were written by the writer before records were typed).
final class TranscriptRecordTests: XCTestCase {
    static let golden = [
        #"{"format":1,"kind":"session","model":"gemini-3.1-flash-live-preview","system":"You are terse.\nAnswer in one line.","time":"2026-11-18T11:06:40Z","voice":"Puck"}"#,
        #"{"format":1,"kind":"session","model":"gemini-3.1-flash-live-preview","resumed":true,"time":"2026-11-18T11:06:40Z","voice":"Kore"}"#,
        #"{"kind":"user","text":"what's the \"weather\" / like?","time":"2026-11-18T11:06:40Z"}"#,
        #"{"interrupted":true,"kind":"model","recordingOffset":12.5,"text":"Sunny, 21 °C — ☀️","time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"system","text":"voice switched","time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"error","text":"the network is down","time":"2026-11-18T11:06:40Z"}"#,
        #"{"arguments":"{\"zone\":\"UTC\"}","duration":0.25,"kind":"tool","result":"{\"time\":\"12:00\"}","state":"ok","time":"2026-11-18T11:06:40Z","toolID":"call-1","toolName":"get_current_time"}"#,
        #"{"arguments":"{}","kind":"tool","state":"cancelled","time":"2026-11-18T11:06:40Z","toolID":"call-2","toolName":"run_shell"}"#,
        #"{"kind":"usage","time":"2026-11-18T11:06:40Z","usage":{"promptTokenCount":1000,"responseTokenCount":40,"totalTokenCount":1040}}"#,
        #"{"carried":{"tokens":4200,"turns":3,"unpriced":["gemini-x"],"usd":0.0125},"kind":"usageCarried","time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"reconnect","resumed":true,"time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"voice","resumed":false,"time":"2026-11-18T11:06:40Z","voice":"Charon"}"#,
        #"{"kind":"queued","text":"are you back?","time":"2026-11-18T11:06:40Z","turnID":2}"#,
        #"{"kind":"sent","time":"2026-11-18T11:06:40Z","turnID":2}"#,
        #"{"kind":"resent","text":"what time is it","time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"resent","time":"2026-11-18T11:06:40Z"}"#,
        #"{"kind":"context","route":"contextUpdate","system":"Be brief.","time":"2026-11-18T11:06:40Z","tools":["lookup","googleSearch"],"voice":"Aoede"}"#,
        #"{"kind":"context","route":"newSession","system":"","time":"2026-11-18T11:06:40Z","tools":[]}"#,
    ]

    /// The records that wrote `golden`, in order.
    static let records: [TranscriptRecord] = {
        var model = TranscriptRecord.line(speaker: .model, text: "Sunny, 21 °C — ☀️", interrupted: true)
        model.recordingOffset = 12.5
        let records: [TranscriptRecord] = [
            .session(model: "gemini-3.1-flash-live-preview", voice: "Puck", system: "You are terse.\nAnswer in one line."),
            .session(model: "gemini-3.1-flash-live-preview", voice: "Kore", continued: true),
            .line(speaker: .user, text: #"what's the "weather" / like?"#, interrupted: false),
            model,
            .line(speaker: .system, text: "voice switched", interrupted: false),
            .line(speaker: .error, text: "the network is down", interrupted: false),
            .tool(id: "call-1", name: "get_current_time", arguments: #"{"zone":"UTC"}"#, state: .ok, result: #"{"time":"12:00"}"#, duration: 0.25),
            .tool(id: "call-2", name: "run_shell", arguments: "{}", state: .cancelled, result: nil, duration: nil),
            .usage(UsageMetadata(promptTokenCount: 1000, responseTokenCount: 40, totalTokenCount: 1040)),
            .usageCarried(UsageCarry(turns: 3, tokens: 4200, usd: 0.0125, unpriced: ["gemini-x"])),
            .reconnect(resumed: true),
            .voice("Charon", resumed: false),
            .queued(id: 2, text: "are you back?"),
            .sent(id: 2),
            .resent("what time is it"),
            .resent(nil),
            .context(ContextChange(
                instruction: "Be brief.", tools: [Tool(functionDeclarations: [FunctionDeclaration(name: "lookup")]), Tool(googleSearch: EmptyObject())],
                voice: "Aoede"), via: .contextUpdate),
            .context(ContextChange(instruction: "", tools: []), via: .newSession),
        ]
        return records.map { r in
            var r = r
            r.time = "2026-11-18T11:06:40Z"
            return r
        }
    }()

    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-records-\(UUID())").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func testEveryKindIsCoveredByTheGoldenLines() {
        XCTAssertEqual(Set(Self.records.map(\.kind)), Set(TranscriptRecord.Kind.allCases))
        XCTAssertEqual(Self.records.count, Self.golden.count)
    }

    func testTheStoreWritesTheLinesItAlwaysHas() throws {
        let store = try TranscriptStore(directory: dir, clock: { Date(timeIntervalSince1970: 1_795_000_000) })
        for r in Self.records { store.append(r) }
        store.close()
        let written = try String(contentsOfFile: store.path, encoding: .utf8)
        XCTAssertEqual(written.split(separator: "\n").map(String.init), Self.golden)
    }

    func testTheGoldenLinesReadAsTheRecordsThatWroteThem() throws {
        let reading = TranscriptReader.read(TranscriptLines(path: "golden", bytes: Array((Self.golden.joined(separator: "\n") + "\n").utf8)))
        XCTAssertEqual(reading.problems, [])
        XCTAssertEqual(reading.records.count, Self.records.count)
        for (read, wrote) in zip(reading.records, Self.records) { XCTAssertEqual(read, wrote) }
    }

    func testEachCaseRoundTrips() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for record in Self.records {
            var r = record
            r.recordingOffset = 3.25
            r.usd = 0.5
            let line = try encoder.encode(r)
            XCTAssertEqual(try JSONDecoder().decode(TranscriptRecord.self, from: line), r, String(decoding: line, as: UTF8.self))
        }
    }

    func testLinesFromOlderAndHandEditedFilesStillRead() throws {
        let lines = [
            // Before session records carried the format.
            #"{"kind":"session","model":"gemini-2.5-flash","time":"2026-10-01T09:00:00Z","voice":"Puck"}"#,
            // A field this parley does not know is ignored.
            #"{"kind":"user","mood":"curious","text":"hello","time":"2026-10-01T09:00:01Z"}"#,
            // A line without text reads as an empty one.
            #"{"kind":"model"}"#,
            #"{"interrupted":false,"kind":"model","text":"cut","usd":0.01}"#,
        ]
        let reading = TranscriptReader.read(TranscriptLines(path: "old", bytes: Array((lines.joined(separator: "\n") + "\n").utf8)))
        XCTAssertEqual(reading.problems, [])
        XCTAssertEqual(reading.records.map(\.entry), [
            .session(.init(model: "gemini-2.5-flash", voice: "Puck", system: nil, continued: false, format: nil)),
            .said(.init(speaker: .user, text: "hello", interrupted: false)),
            .said(.init(speaker: .model, text: "", interrupted: false)),
            .said(.init(speaker: .model, text: "cut", interrupted: false)),
        ])
        XCTAssertEqual(reading.records.last?.usd, 0.01)
    }

    func testALineOfAKnownKindWithoutWhatItNeedsIsNamedAndSkipped() throws {
        let lines = [
            #"{"kind":"user","text":"kept"}"#,
            #"{"kind":"tool","toolName":"x"}"#,
            #"{"arguments":"{}","kind":"tool","state":"exploded","toolID":"1","toolName":"x"}"#,
            #"{"kind":"context","route":"telepathy"}"#,
            #"{"kind":"usage"}"#,
            #"{"kind":"hologram","text":"from a newer parley"}"#,
            #"{"kind":"model","text":"also kept"}"#,
        ]
        let reading = TranscriptReader.read(TranscriptLines(path: "odd", bytes: Array((lines.joined(separator: "\n") + "\n").utf8)))
        XCTAssertEqual(reading.records.compactMap(\.said?.text), ["kept", "also kept"])
        XCTAssertEqual(reading.problems, [
            .notARecord(line: 2), .notARecord(line: 3), .notARecord(line: 4), .notARecord(line: 5), .unknownKind(line: 6, kind: "hologram"),
        ])
    }
}
