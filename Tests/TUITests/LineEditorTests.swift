import XCTest
@testable import TUI

final class LineEditorTests: XCTestCase {
    func type(_ e: inout LineEditor, _ s: String) { for c in s { _ = e.handle(.char(c)) } }

    func testInsertMoveAndDeleteGraphemes() {
        var e = LineEditor()
        type(&e, "héllo 世界😀")
        XCTAssertEqual(e.text, "héllo 世界😀")
        XCTAssertEqual(e.cursor, 9)
        _ = e.handle(KeyEvent(.backspace))
        XCTAssertEqual(e.text, "héllo 世界")
        _ = e.handle(KeyEvent(.left)); _ = e.handle(KeyEvent(.left))
        _ = e.handle(KeyEvent(.delete))
        XCTAssertEqual(e.text, "héllo 界")
        _ = e.handle(KeyEvent(.home)); _ = e.handle(KeyEvent(.right))
        _ = e.handle(KeyEvent(.backspace))
        XCTAssertEqual(e.text, "éllo 界")
        _ = e.handle(.ctrl("e"))
        XCTAssertEqual(e.cursor, e.text.count)
        _ = e.handle(.ctrl("a"))
        XCTAssertEqual(e.cursor, 0)
    }

    func testCombiningMarkJoinsPreviousCharacter() {
        var e = LineEditor()
        type(&e, "e")
        e.insert("\u{301}")
        XCTAssertEqual(e.text, "é")
        XCTAssertEqual(e.cursor, 1)
    }

    func testKills() {
        var e = LineEditor(text: "send the weather report")
        _ = e.handle(.ctrl("w"))
        XCTAssertEqual(e.text, "send the weather ")
        _ = e.handle(.ctrl("a")); _ = e.handle(KeyEvent(.right)); _ = e.handle(KeyEvent(.right))
        _ = e.handle(.ctrl("k"))
        XCTAssertEqual(e.text, "se")
        _ = e.handle(.ctrl("u"))
        XCTAssertEqual(e.text, "")
    }

    func testPasteSubmitLeave() {
        var e = LineEditor()
        e.insert("line one\nline two\t!")
        XCTAssertEqual(e.text, "line one line two !")
        XCTAssertEqual(e.handle(KeyEvent(.enter)), .submit("line one line two !"))
        XCTAssertEqual(e.text, "")
        XCTAssertEqual(e.handle(KeyEvent(.escape)), .leave)
        XCTAssertEqual(e.handle(KeyEvent(.character("x"), kind: .release)), .none)
    }

    func testInputLineScrollsToCursor() {
        let e = LineEditor(text: String(repeating: "abcdefghij", count: 5))
        let line = InputLineView.render(e, width: 20)
        XCTAssertEqual(line.width, 20)
        XCTAssertTrue(line.text.hasPrefix("› "))
        XCTAssertTrue(line.text.contains("hij "), line.text)
        XCTAssertTrue(line.runs.contains { $0.role == .inputCursor && $0.text == " " }, "cursor after the text")
    }
}

final class VoiceMenuTests: XCTestCase {
    func testFilterSelectChoose() {
        var m = VoiceMenu(voices: Fixtures.voices, current: "Puck")
        XCTAssertEqual(m.selected?.name, "Puck", "starts on the current voice")
        XCTAssertEqual(m.handle(.char("k")), .changed)
        XCTAssertEqual(m.filtered.map(\.name), ["Kore", "Puck", "Sadaltager"], "name prefix first, then names and styles containing it")
        XCTAssertEqual(m.handle(.char("o")), .changed)
        XCTAssertEqual(m.filtered.map(\.name), ["Kore"])
        XCTAssertEqual(m.handle(KeyEvent(.enter)), .choose("Kore"))
        _ = m.handle(KeyEvent(.backspace)); _ = m.handle(KeyEvent(.backspace))
        XCTAssertEqual(m.filtered.count, 30)
        XCTAssertEqual(m.selected?.name, "Puck")
        _ = m.handle(KeyEvent(.down))
        XCTAssertEqual(m.selected?.name, "Charon")
        _ = m.handle(KeyEvent(.end))
        XCTAssertEqual(m.selected?.name, "Sulafat")
        _ = m.handle(KeyEvent(.down))
        XCTAssertEqual(m.selected?.name, "Sulafat")
        _ = m.handle(KeyEvent(.home)); _ = m.handle(KeyEvent(.up))
        XCTAssertEqual(m.selected?.name, "Zephyr")
        XCTAssertEqual(m.handle(KeyEvent(.escape)), .close)
    }

    func testFilterByStyleAndNoMatch() {
        var m = VoiceMenu(voices: Fixtures.voices, current: "Puck")
        for c in "firm" { _ = m.handle(.char(c)) }
        XCTAssertEqual(m.filtered.map(\.name), ["Kore", "Orus", "Alnilam"])
        _ = m.handle(.char("x"))
        XCTAssertTrue(m.filtered.isEmpty)
        XCTAssertEqual(m.handle(KeyEvent(.enter)), .none)
    }

    func testConfirmDefaultsToNo() {
        var c = ConfirmModel(question: "Run shell command?", detail: "ls")
        let screen = Size(rows: 24, columns: 80)
        XCTAssertEqual(c.handle(KeyEvent(.enter), screen: screen), .no)
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .yes)
        XCTAssertEqual(c.handle(KeyEvent(.escape), screen: screen), .no)
        XCTAssertEqual(c.handle(.char("x"), screen: screen), .none)
    }
}

final class LineEditorWordTests: XCTestCase {
    func testWordMovesAndKills() {
        var e = LineEditor(text: "one two three")
        _ = e.handle(KeyEvent(.left, .control))
        XCTAssertEqual(e.cursor, 8)
        _ = e.handle(KeyEvent(.character("b"), .alt))
        XCTAssertEqual(e.cursor, 4)
        _ = e.handle(KeyEvent(.character("d"), .alt))
        XCTAssertEqual(e.text, "one  three")
        _ = e.handle(KeyEvent(.right, .alt))
        XCTAssertEqual(e.cursor, 10)
        _ = e.handle(KeyEvent(.backspace, .alt))
        XCTAssertEqual(e.text, "one  ")
        XCTAssertEqual(e.handle(KeyEvent(.character("x"), .alt)), .none, "other Alt keys insert nothing")
    }

    func testModifyOtherKeysForm() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed(Array("\u{1b}[27;5;99~\u{1b}[27;2;13~".utf8), now: 0), [.key(.ctrl("c")), .key(KeyEvent(.enter, .shift))])
    }

    func testExecutablePathIsReal() {
        XCTAssertTrue(ThemeLoader.currentExecutablePath().hasPrefix("/"))
    }
}

final class LineEditorHistoryTests: XCTestCase {
    func testUpDownRecallAndKeepTheDraft() {
        var e = LineEditor(history: ["first", "second"])
        for c in "dra" { _ = e.handle(.char(c)) }
        _ = e.handle(KeyEvent(.up))
        XCTAssertEqual(e.text, "second")
        _ = e.handle(KeyEvent(.up)); _ = e.handle(KeyEvent(.up))
        XCTAssertEqual(e.text, "first")
        _ = e.handle(KeyEvent(.down))
        XCTAssertEqual(e.text, "second")
        _ = e.handle(KeyEvent(.down))
        XCTAssertEqual(e.text, "dra", "back to the draft")
        XCTAssertEqual(e.handle(KeyEvent(.down)), .none)
        _ = e.handle(.ctrl("p"))
        _ = e.handle(.char("!"))
        XCTAssertEqual(e.handle(KeyEvent(.enter)), .submit("second!"))
        XCTAssertEqual(e.history, ["first", "second", "second!"])
        XCTAssertEqual(e.handle(KeyEvent(.enter)), .submit(""), "empty lines are not remembered")
        XCTAssertEqual(e.history.count, 3)
    }
}
