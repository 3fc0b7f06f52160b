@testable import Conversation
import Foundation
import ParleyTesting
import XCTest

@testable import App

/// Issue 25: `parley history` lists, searches and shows saved conversations; IDs are file names or unique
/// prefixes of them; output is plain when it is not going to a terminal.
final class HistoryTests: XCTestCase {
    var home: String!
    var dir: String { home + "/data/parley" }

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-history-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    func env() -> [String: String] {
        ["HOME": home!, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state",
         "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"]
    }

    /// Saves a conversation that started at `start` with one said line every 10 seconds; returns its ID.
    @discardableResult
    func conversation(
        at start: Date, model: String = "gemini-live-test", voice: String = "Puck", system: String? = nil,
        _ said: [(String, String)], extra: [TranscriptRecord] = []
    ) throws -> String {
        ConversationID.id(of: try savedConversation(in: dir, at: start, model: model, voice: voice, system: system, said, extra: extra))
    }

    func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 86_400) }

    func testTheListShowsEachConversationOldestFirstWithoutColoursInAPipe() throws {
        let old = try conversation(at: day(0), system: "You are a pirate.\nSpeak like one.", [
            ("user", "what is the weather in Lisbon"), ("model", "Sunny and warm."), ("user", "and tomorrow?"), ("model", "Rain."),
        ])
        let new = try conversation(at: day(2), model: "models/gemini-other", voice: "Kore", [("user", "tell me a joke")])
        let r = try shell([Binaries.parley, "history"], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertFalse(r.out.contains("\u{1B}"), "no colours when stdout is not a terminal: \(r.out)")
        let lines = r.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.out)
        XCTAssertTrue(lines[0].hasPrefix("ID"), r.out)
        XCTAssertFalse(lines[0].contains("COST"), "no cost column when no record carries a cost")
        XCTAssertTrue(lines[1].hasPrefix(old) && lines[2].hasPrefix(new), r.out)
        for part in ["40s", " 2 ", "gemini-live-test", "Puck · You are a pirate.", "what is the weather in Lisbon"] {
            XCTAssertTrue(lines[1].contains(part), "\(part) in \(lines[1])")
        }
        XCTAssertTrue(lines[2].contains("gemini-other") && !lines[2].contains("models/"), lines[2])
        XCTAssertTrue(lines[2].contains(" 1 ") && lines[2].contains("Kore") && lines[2].contains("tell me a joke"), lines[2])
    }

    func testTheCostColumnAppearsWhenRecordsCarryACost() throws {
        var usage = TranscriptRecord(kind: "usage")
        usage.usd = 0.25
        try conversation(at: day(0), [("user", "hi")], extra: [usage, usage])
        try conversation(at: day(1), [("user", "hello")])
        let summaries = HistoryIndex.summaries(in: dir)
        XCTAssertEqual(summaries.map(\.usd), [0.5, nil])
        let text = HistoryPrinter(color: false, width: nil).list(summaries)
        XCTAssertTrue(text.contains("COST") && text.contains("$0.50"), text)
    }

    func testTheIndexIsUsedWhileFreshAndRebuiltWhenATranscriptChanges() throws {
        let id = try conversation(at: day(0), [("user", "one")])
        XCTAssertEqual(HistoryIndex.summaries(in: dir).map(\.turns), [1])
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + HistoryIndex.fileName))
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/\(id).jsonl"))
        h.seekToEndOfFile()
        h.write(Data(#"{"kind":"user","text":"two","time":"2026-09-21T14-00-00Z"}"#.utf8 + [0x0A]))
        h.closeFile()
        XCTAssertEqual(HistoryIndex.summaries(in: dir).map(\.turns), [2], "a changed transcript is summarised again")
        try FileManager.default.removeItem(atPath: dir + "/\(id).jsonl")
        XCTAssertEqual(HistoryIndex.summaries(in: dir), [], "a deleted transcript leaves the list")
    }

    func testSearchFindsBothSidesWithTheirConversationTimeAndContext() throws {
        let a = try conversation(at: day(0), [("user", "What is the WEATHER in Lisbon"), ("model", "Sunny and warm in lisbon.")])
        let b = try conversation(at: day(1), [("user", "hello"), ("model", "The weather here is fine")])
        try conversation(at: day(2), [("user", "nothing to see")])
        let r = try shell([Binaries.parley, "history", "search", "weather"], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertFalse(r.out.contains("\u{1B}"), r.out)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        XCTAssertEqual(lines, [
            a, "  14:13:30  You     What is the WEATHER in Lisbon", "  14:13:40  Gemini  Sunny and warm in lisbon.",
            b, "  14:13:30  You     hello", "  14:13:40  Gemini  The weather here is fine",
        ])
        let both = try shell([Binaries.parley, "history", "search", "lisbon", "sunny"], env: env())
        XCTAssertEqual(both.out.split(separator: "\n").count, 3, "one match (every word in one line) and its context: \(both.out)")
        XCTAssertTrue(both.out.contains("Sunny and warm"), both.out)
        let adjacent = try shell([Binaries.parley, "history", "search", "lisbon"], env: env())
        XCTAssertEqual(adjacent.out.split(separator: "\n").count, 3, "two matches that are each other's context are shown once: \(adjacent.out)")
        let none = try shell([Binaries.parley, "history", "search", "zeppelin"], env: env())
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.err.contains("nothing said matches zeppelin"), none.err)
    }

    func testSearchWithoutTheRawShortcutStillFindsNonASCIIAndQuotes() throws {
        let lines = TranscriptLines(path: "t", bytes: Array(
            #"{"kind":"user","text":"Ça va? He said \"Ölfeld\" twice"}"#.utf8) + [0x0A])
        for query in [["ça"], ["\"ölfeld\""], ["ÖLFELD"]] {
            XCTAssertEqual(TranscriptSearch(query).search(lines, conversation: "t").count, 1, "\(query)")
        }
    }

    func testShowAndExportTakeAUniquePrefixAndSayWhenOneIsAmbiguousOrUnknown() throws {
        let first = try conversation(at: day(0), [("user", "first conversation")])
        let second = try conversation(at: day(0) + 60, [("user", "second conversation")])
        try conversation(at: day(5), [("user", "third conversation")])
        // The two on day 0 share their date.
        let shared = String(first.prefix(first.count - 8))
        XCTAssertTrue(second.hasPrefix(shared))
        let uniqueDay5 = String(ConversationID.id(of: TranscriptStore.sessions(in: dir)[2]).dropFirst("session-".count).prefix(10))

        let show = try shell([Binaries.parley, "history", "show", uniqueDay5], env: env())
        XCTAssertEqual(show.status, 0, show.err)
        XCTAssertTrue(show.out.contains("third conversation") && show.out.contains("model gemini-live-test · voice Puck"), show.out)

        let export = try shell([Binaries.parley, "export", String(second.prefix(second.count - 1))], env: env())
        XCTAssertEqual(export.status, 0, export.err)
        XCTAssertTrue(export.out.contains("**You:** second conversation"), export.out)

        let ambiguous = try shell([Binaries.parley, "history", "show", shared], env: env())
        XCTAssertEqual(ambiguous.status, 64)
        XCTAssertTrue(ambiguous.err.contains("matches 2 conversations") && ambiguous.err.contains(first) && ambiguous.err.contains(second), ambiguous.err)

        let unknown = try shell([Binaries.parley, "export", "session-1999"], env: env())
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.err.contains("no conversation matches \"session-1999\"") && unknown.err.contains(first), unknown.err)
    }

    func testShowNamesWhatCouldNotBeRead() throws {
        let id = try conversation(at: day(0), [("user", "whole line")])
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/\(id).jsonl"))
        h.seekToEndOfFile()
        h.write(Data(#"{"kind":"model","text":"cut sh"#.utf8))
        h.closeFile()
        let r = try shell([Binaries.parley, "history", "show", id], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("whole line"), r.out)
        XCTAssertTrue(r.err.contains("line 3 is cut short"), r.err)
    }

    func testColoursAreOnlyForATerminalWithoutNoColor() {
        XCTAssertFalse(HistoryPrinter.standard(environment: ["TERM": "xterm"]).color, "stdout is not a terminal in tests")
        let painted = HistoryPrinter(color: true, width: nil)
        var r = TranscriptRecord.line(speaker: "user", text: "the Weather is fine", interrupted: false)
        r.time = "2026-01-01T00:00:00Z"
        let out = painted.matches([.init(conversation: "c", line: r, index: 0, context: nil)], words: ["weather"])
        XCTAssertTrue(out.contains("\u{1B}[1;7mWeather\u{1B}[0m"), out)
    }

    func testHistoryAppearsInTheHelpAndTheCompletions() throws {
        let help = try shell([Binaries.parley, "--help"], env: env())
        XCTAssertTrue(help.out.contains("history"), help.out)
        let completion = try shell([Binaries.parley, "--generate-completion-script", "bash"], env: env())
        XCTAssertTrue(completion.out.contains("history") && completion.out.contains("search"), "the completions are generated from the same definitions")
    }
}

/// Saves a conversation in `dir` that started at `start`, one said line every 10 seconds, then `extra`;
/// returns its file.
func savedConversation(
    in dir: String, at start: Date, model: String, voice: String, system: String?, _ said: [(String, String)],
    extra: [TranscriptRecord] = []
) throws -> String {
    var now = start
    let store = try TranscriptStore(directory: dir, clock: { now })
    store.append(.session(model: model, voice: voice, system: system))
    for (kind, text) in said {
        now += 10
        store.append(.line(speaker: kind, text: text, interrupted: false))
    }
    for r in extra { store.append(r) }
    store.close()
    return store.path
}
