import XCTest
@testable import TUI

/// Issue 11 item 1 (consent cannot be tricked) and item 4 (one sanitiser shows control characters).
final class TerminalTextTests: XCTestCase {
    func testControlCharactersBecomeVisible() {
        let hostile = "a\u{1b}]0;pwned\u{07}b\u{1b}[2J\u{0}c\rd\u{9b}31me\u{202e}f\u{7f}"
        let shown = TerminalText.sanitized(hostile)
        XCTAssertEqual(shown, "a␛]0;pwned␇b␛[2J␀c␍d⟨U+009B⟩31me⟨U+202E⟩f␡")
        XCTAssertFalse(shown.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) })
    }

    func testMultilineKeepsLineBreaksAndTabsSingleLineShowsThem() {
        XCTAssertEqual(TerminalText.sanitized("one\n\ttwo"), "one\n\ttwo")
        XCTAssertEqual(TerminalText.sanitized("one\n\ttwo", .singleLine), "one␊␉two")
        XCTAssertEqual(TerminalText.sanitized("x\r\ny"), "x␍\ny")
    }

    func testOrdinaryTextIsUntouched() {
        let text = "Grüße, 世界 👩‍💻 — café ✓"
        XCTAssertEqual(TerminalText.sanitized(text), text)
        XCTAssertTrue(TerminalText.isClean(text))
    }

    func testInvisibleFormattingIsShown() {
        XCTAssertEqual(TerminalText.sanitized("rm\u{200b} -rf\u{2066}x\u{2069}"), "rm⟨U+200B⟩ -rf⟨U+2066⟩x⟨U+2069⟩")
    }
}

final class ConsentPopupTests: XCTestCase {
    let screen = Size(rows: 24, columns: 80)

    /// Everything the popup puts on screen, as plain text.
    func shown(_ c: ConfirmModel) -> String {
        OverlayView.render(.confirm(c), screen: screen, keyMap: .default).lines.map(\.text).joined(separator: "\n")
    }

    func testHiddenTailAfterManyNewlinesIsAnnouncedAndYIsRefusedUntilSeen() {
        let command = "echo harmless" + String(repeating: "\n", count: 60) + "touch /tmp/pwned"
        var c = ConfirmModel(question: "Run this?", detail: command)
        let first = shown(c)
        XCTAssertTrue(first.contains("echo harmless"))
        XCTAssertFalse(first.contains("touch"), "the tail is below the window")
        XCTAssertTrue(first.contains("more lines (↓ to read)"), first)
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .changed, "y before the end must not run it")
        XCTAssertTrue(shown(c).contains("read to the end first"))
        XCTAssertEqual(c.handle(KeyEvent(.end), screen: screen), .changed)
        let last = shown(c)
        XCTAssertTrue(last.contains("touch /tmp/pwned"), last)
        XCTAssertTrue(last.contains("61 touch /tmp/pwned"), "lines are numbered: \(last)")
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .yes)
    }

    func testScrollingStepByStepReachesTheEnd() {
        var c = ConfirmModel(question: "Run this?", detail: (1...40).map { "echo \($0)" }.joined(separator: "\n"))
        var steps = 0
        while !c.seenEnd && steps < 100 {
            _ = c.handle(KeyEvent(.down), screen: screen)
            steps += 1
        }
        XCTAssertTrue(c.seenEnd)
        XCTAssertTrue(shown(c).contains("echo 40"))
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .yes)
    }

    func testALongSingleLineWrapsWhole() {
        let command = "echo ok; " + String(repeating: "x", count: 3000) + "; rm -rf ~"
        var c = ConfirmModel(question: "Run this?", detail: command)
        XCTAssertFalse(shown(c).contains("rm -rf"))
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .changed)
        _ = c.handle(KeyEvent(.end), screen: screen)
        XCTAssertTrue(shown(c).contains("rm -rf ~"))
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .yes)
    }

    func testEscapesInTheCommandAreShownNotDropped() {
        let c = ConfirmModel(question: "Run this?", detail: "echo \u{1b}[8mhidden\u{1b}[0m; rm x")
        let text = shown(c)
        XCTAssertTrue(text.contains("echo ␛[8mhidden␛[0m; rm x"), text)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1b })
    }

    func testCtrlCQuitsAndShortCommandsNeedNoScrolling() {
        var c = ConfirmModel(question: "Run this?", detail: "ls -l")
        XCTAssertFalse(shown(c).contains("more line"))
        XCTAssertEqual(c.handle(.ctrl("c"), screen: screen), .quit)
        XCTAssertEqual(c.handle(.char("y"), screen: screen), .yes)
    }
}
