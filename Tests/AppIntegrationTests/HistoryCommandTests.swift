@testable import Conversation
import AppTesting
import Foundation
import ParleyTesting
import XCTest

@testable import App

/// Issue 25: `parley history` lists, searches and shows saved conversations; IDs are file names or unique
/// prefixes of them; output is plain when it is not going to a terminal. The binary run as a child; the index,
/// the raw search and the colours in `HistoryTests`.
final class HistoryCommandTests: SavedConversationsTestCase {
    func testTheListShowsEachConversationOldestFirstWithoutColoursInAPipe() throws {
        let old = try conversation(at: day(0), system: "You are a pirate.\nSpeak like one.", [
            (.user, "what is the weather in Lisbon"), (.model, "Sunny and warm."), (.user, "and tomorrow?"), (.model, "Rain."),
        ])
        let new = try conversation(at: day(2), model: "models/gemini-other", voice: "Kore", [(.user, "tell me a joke")])
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

    func testSearchFindsBothSidesWithTheirConversationTimeAndContext() throws {
        let a = try conversation(at: day(0), [(.user, "What is the WEATHER in Lisbon"), (.model, "Sunny and warm in lisbon.")])
        let b = try conversation(at: day(1), [(.user, "hello"), (.model, "The weather here is fine")])
        try conversation(at: day(2), [(.user, "nothing to see")])
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

    func testShowAndExportTakeAUniquePrefixAndSayWhenOneIsAmbiguousOrUnknown() throws {
        let first = try conversation(at: day(0), [(.user, "first conversation")])
        let second = try conversation(at: day(0) + 60, [(.user, "second conversation")])
        try conversation(at: day(5), [(.user, "third conversation")])
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
        let id = try conversation(at: day(0), [(.user, "whole line")])
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/\(id).jsonl"))
        h.seekToEndOfFile()
        h.write(Data(#"{"kind":"model","text":"cut sh"#.utf8))
        h.closeFile()
        let r = try shell([Binaries.parley, "history", "show", id], env: env())
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("whole line"), r.out)
        XCTAssertTrue(r.err.contains("line 3 is cut short"), r.err)
    }

    func testHistoryAppearsInTheHelpAndTheCompletions() throws {
        let help = try shell([Binaries.parley, "--help"], env: env())
        XCTAssertTrue(help.out.contains("history"), help.out)
        let completion = try shell([Binaries.parley, "--generate-completion-script", "bash"], env: env())
        XCTAssertTrue(completion.out.contains("history") && completion.out.contains("search"), "the completions are generated from the same definitions")
    }
}
