@testable import Conversation
import Foundation
import TUI
import XCTest

/// `/` searches the transcript on screen: as the query is typed, Enter keeps it, `n`/`N` step to older and
/// newer matches and scroll to them, Esc leaves; typing a message is not affected.
final class SearchReducerTests: XCTestCase {
    var s = AppState.starting()

    @discardableResult
    func key(_ k: KeyEvent) -> [Effect] { Reducer.reduce(&s, .input(.key(k)), now: 1) }
    @discardableResult
    func type(_ text: String) -> [Effect] { text.flatMap { key(.char($0)) } }

    /// The entry ids the effects scroll to.
    func scrolledTo(_ fx: [Effect]) -> [Int] {
        fx.compactMap { if case .scroll(.entry(let id)) = $0 { id } else { nil } }
    }

    override func setUp() {
        for i in 0..<20 {
            s.ui.transcript.append(.user, "question \(i)" + (i % 5 == 0 ? " about the Weather" : ""))
            s.ui.transcript.append(.model, "answer \(i)")
        }
    }

    func testTypingSearchesAsItGoesFromTheNewestMatch() {
        XCTAssertEqual(key(.char("/")), [])
        XCTAssertNotNil(s.ui.search?.editor, "the query line is open")
        let fx = type("weather")
        // user entries 0, 10, 20, 30 hold it (i = 0, 5, 10, 15); the newest is shown first.
        XCTAssertEqual(s.ui.search?.matches, [0, 10, 20, 30])
        XCTAssertEqual(scrolledTo(fx).last, 30)
        XCTAssertEqual(s.ui.status, "4/4")
        XCTAssertEqual(s.ui.search?.highlight(for: 30), SearchState.Highlight(query: "weather", current: true))
        XCTAssertEqual(s.ui.search?.highlight(for: 10), SearchState.Highlight(query: "weather", current: false))
        XCTAssertNil(s.ui.search?.highlight(for: 11))
    }

    func testEnterKeepsTheQueryAndNStepsThroughMatchesWrapping() {
        key(.char("/"))
        type("weather")
        key(KeyEvent(.enter))
        XCTAssertNil(s.ui.search?.editor, "the line closes, the matches stay")
        XCTAssertEqual(scrolledTo(key(.char("n"))), [20])
        XCTAssertEqual(s.ui.status, "3/4")
        XCTAssertEqual(scrolledTo(key(.char("n"))), [10])
        XCTAssertEqual(scrolledTo(key(.char("n"))), [0])
        XCTAssertEqual(scrolledTo(key(.char("n"))), [30], "wraps to the newest")
        XCTAssertEqual(s.ui.status, "4/4")
        XCTAssertEqual(scrolledTo(key(.char("N"))), [0], "N goes the other way, wrapping")
        XCTAssertEqual(s.ui.status, "1/4")
        // A line added since is found by the next step.
        s.ui.transcript.append(.model, "more weather tomorrow")
        XCTAssertEqual(scrolledTo(key(.char("N"))), [10])
        XCTAssertEqual(s.ui.status, "2/5")
        key(KeyEvent(.escape))
        XCTAssertNil(s.ui.search, "Esc leaves the search")
        XCTAssertNil(s.ui.status)
    }

    func testNoMatchSaysSoAndEscInTheLineLeaves() {
        key(.char("/"))
        let fx = type("zebra")
        XCTAssertEqual(scrolledTo(fx), [])
        XCTAssertEqual(s.ui.status, "no match for \"zebra\"")
        key(KeyEvent(.escape))
        XCTAssertNil(s.ui.search)
        key(.char("n"))
        XCTAssertEqual(s.ui.status, "no search yet: / searches the transcript")
        key(.char("/"))
        key(.ctrl("c"))
        XCTAssertNil(s.ui.search, "Ctrl-C in the query line leaves the search, not the app")
        XCTAssertFalse(s.quitting)
    }

    func testTheSearchKeysAreTextWhileTypingAMessage() {
        key(KeyEvent(.tab))
        type("n/N")
        XCTAssertEqual(s.ui.input?.text, "n/N")
        XCTAssertNil(s.ui.search)
    }

    func testTheSearchLineTakesSpaceAsTextNotTalk() {
        key(.char("/"))
        type("question 1")
        XCTAssertEqual(s.ui.search?.editor?.text, "question 1")
        XCTAssertFalse(s.micOpen)
        XCTAssertEqual(s.ui.search?.matches.count, 11, "question 1 and 10 to 19")
    }

    func testTheKeysAreFreeAndInTheHelp() {
        let map = KeyMap.default
        for (ch, command) in [("/", Command.search), ("n", .searchOlder), ("N", .searchNewer)] {
            XCTAssertEqual(map.bindings.filter { $0.chord == KeyChord(.character(Character(ch))) }.map(\.command), [command])
        }
        let help = OverlayView.render(.help(top: 0), screen: Size(rows: 100, columns: 120), keyMap: map).lines
        XCTAssertTrue(help.contains { $0.text.contains("search the transcript") }, help.map(\.text).joined(separator: "\n"))
    }
}
