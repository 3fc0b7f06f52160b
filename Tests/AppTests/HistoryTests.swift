@testable import Conversation
import AppTesting
import Foundation
import Live
import XCTest

@testable import App

/// Issue 25, in process: the history index, the cost column, the search without its raw shortcut, and when
/// `history` paints. The commands themselves run as a child in `HistoryCommandTests`.
final class HistoryTests: SavedConversationsTestCase {
    func testTheCostColumnAppearsWhenRecordsCarryACost() throws {
        var usage = TranscriptRecord.usage(UsageMetadata())
        usage.usd = 0.25
        try conversation(at: day(0), [(.user, "hi")], extra: [usage, usage])
        try conversation(at: day(1), [(.user, "hello")])
        let summaries = HistoryIndex.summaries(in: dir)
        XCTAssertEqual(summaries.map(\.usd), [0.5, nil])
        let text = HistoryPrinter(color: false, width: nil).list(summaries)
        XCTAssertTrue(text.contains("COST") && text.contains("$0.50"), text)
    }

    func testTheIndexIsUsedWhileFreshAndRebuiltWhenATranscriptChanges() throws {
        let id = try conversation(at: day(0), [(.user, "one")])
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

    func testSearchWithoutTheRawShortcutStillFindsNonASCIIAndQuotes() throws {
        let lines = TranscriptLines(path: "t", bytes: Array(
            #"{"kind":"user","text":"Ça va? He said \"Ölfeld\" twice"}"#.utf8) + [0x0A])
        for query in [["ça"], ["\"ölfeld\""], ["ÖLFELD"]] {
            XCTAssertEqual(TranscriptSearch(query).search(lines, conversation: "t").count, 1, "\(query)")
        }
    }

    func testColoursAreOnlyForATerminalWithoutNoColor() {
        XCTAssertFalse(HistoryPrinter.standard(environment: ["TERM": "xterm"]).color, "stdout is not a terminal in tests")
        let painted = HistoryPrinter(color: true, width: nil)
        var r = TranscriptRecord.line(speaker: .user, text: "the Weather is fine", interrupted: false)
        r.time = "2026-01-01T00:00:00Z"
        let out = painted.matches([.init(conversation: "c", line: r, index: 0, context: nil)], words: ["weather"])
        XCTAssertTrue(out.contains("\u{1B}[1;7mWeather\u{1B}[0m"), out)
    }
}
