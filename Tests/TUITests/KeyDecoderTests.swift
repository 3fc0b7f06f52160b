import XCTest
@testable import TUI

final class KeyDecoderTests: XCTestCase {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    func keys(_ events: [InputEvent]) -> [KeyEvent] { events.compactMap { if case .key(let k) = $0 { return k } else { return nil } } }

    func testPlainTextAndControlKeys() {
        var d = KeyDecoder()
        let ev = keys(d.feed(bytes("aZ ?\r\t\u{7f}\u{03}\u{01}\u{17}"), now: 0))
        XCTAssertEqual(ev, [.char("a"), .char("Z"), .char(" "), .char("?"), KeyEvent(.enter), KeyEvent(.tab),
                            KeyEvent(.backspace), .ctrl("c"), .ctrl("a"), .ctrl("w")])
        XCTAssertNil(d.deadline)
    }

    func testUTF8SplitAcrossReads() {
        var d = KeyDecoder()
        let all = bytes("é世😀")
        var out: [KeyEvent] = []
        for b in all { out += keys(d.feed([b], now: 0)) }
        XCTAssertEqual(out, [.char("é"), .char("世"), .char("😀")])
        // A split in the middle of a 4-byte sequence yields nothing until the rest arrives.
        let e = bytes("😀")
        XCTAssertTrue(d.feed(e[0..<2], now: 1).isEmpty)
        XCTAssertEqual(keys(d.feed(e[2...], now: 1)), [.char("😀")])
    }

    func testArrowsAndFunctionKeys() {
        var d = KeyDecoder()
        let seq = "\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D\u{1b}[H\u{1b}[F\u{1b}OH\u{1b}OF\u{1b}[5~\u{1b}[6~\u{1b}[3~\u{1b}[2~\u{1b}[1~\u{1b}[4~\u{1b}OP\u{1b}[15~\u{1b}[24~\u{1b}[Z\u{1b}[1;5C"
        let ev = keys(d.feed(bytes(seq), now: 0))
        XCTAssertEqual(ev.map(\.key), [.up, .down, .right, .left, .home, .end, .home, .end, .pageUp, .pageDown, .delete, .insert,
                                       .home, .end, .function(1), .function(5), .function(12), .tab, .right])
        XCTAssertEqual(ev[17].modifiers, .shift)
        XCTAssertEqual(ev[18].modifiers, .control)
    }

    func testEscAloneNeedsTimeoutButSequenceDoesNot() {
        var d = KeyDecoder(escapeTimeout: 0.05)
        XCTAssertTrue(d.feed([0x1b], now: 10).isEmpty)
        XCTAssertEqual(d.deadline, 10.05)
        XCTAssertTrue(d.flush(now: 10.01).isEmpty, "too early")
        // The rest of the sequence arrives in time: an arrow, not Esc.
        XCTAssertEqual(keys(d.feed(bytes("[A"), now: 10.02)), [KeyEvent(.up)])
        XCTAssertNil(d.deadline)
        // A lone Esc becomes the Esc key once the timeout passes.
        XCTAssertTrue(d.feed([0x1b], now: 20).isEmpty)
        XCTAssertEqual(keys(d.flush(now: 20.06)), [KeyEvent(.escape)])
        XCTAssertNil(d.deadline)
        // Alt+x.
        XCTAssertEqual(keys(d.feed(bytes("\u{1b}x"), now: 30)), [KeyEvent(.character("x"), .alt)])
    }

    func testBracketedPasteIsOneEventEvenWhenSplit() {
        var d = KeyDecoder()
        var ev = d.feed(bytes("a\u{1b}[200~hello\r\nwor"), now: 0)
        XCTAssertEqual(ev, [.key(.char("a"))])
        XCTAssertTrue(d.isInPaste)
        XCTAssertNil(d.deadline, "no Esc timeout inside a paste")
        ev = d.feed(bytes("ld 世界 \u{1b}[A\u{1b}[20"), now: 1)
        XCTAssertEqual(ev, [])
        ev = d.feed(bytes("1~b"), now: 2)
        XCTAssertEqual(ev, [.paste("hello\nworld 世界 \u{1b}[A"), .key(.char("b"))])
        XCTAssertFalse(d.isInPaste)
    }

    func testKittySpacePressRepeatRelease() {
        var d = KeyDecoder()
        let ev = keys(d.feed(bytes("\u{1b}[32u\u{1b}[32;1:2u\u{1b}[32;1:2u\u{1b}[32;1:3u"), now: 0))
        XCTAssertEqual(ev.map(\.kind), [.press, .repeat, .repeat, .release])
        XCTAssertTrue(ev.allSatisfy(\.isSpace))
    }

    func testKittyKeysWithModifiersAndText() {
        var d = KeyDecoder()
        let ev = keys(d.feed(bytes("\u{1b}[99;5u\u{1b}[97;2u\u{1b}[47;2u\u{1b}[13u\u{1b}[27u\u{1b}[127u\u{1b}[9u\u{1b}[97;2;65u\u{1b}[57441;2u\u{1b}[1;1:3A\u{1b}[5;1:3~"), now: 0))
        XCTAssertEqual(ev, [.ctrl("c"), .char("A"), .char("?"), KeyEvent(.enter), KeyEvent(.escape), KeyEvent(.backspace),
                            KeyEvent(.tab), .char("A"), KeyEvent(.other(57441), .shift),
                            KeyEvent(.up, kind: .release), KeyEvent(.pageUp, kind: .release)])
    }

    func testDetectionReplies() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed(bytes("\u{1b}[?1u\u{1b}[?62;22c"), now: 0), [.kittyFlags(1), .deviceAttributes])
        XCTAssertEqual(d.feed(bytes("\u{1b}[?6c"), now: 0), [.deviceAttributes])
    }

    func testSplitCSIWaitsForFinalByte() {
        var d = KeyDecoder()
        XCTAssertTrue(d.feed(bytes("\u{1b}[32;1"), now: 0).isEmpty)
        XCTAssertEqual(keys(d.feed(bytes(":3u"), now: 0.01)), [KeyEvent(.character(" "), kind: .release)])
    }

    func testUnknownSequencesAreDropped() {
        var d = KeyDecoder()
        XCTAssertEqual(keys(d.feed(bytes("\u{1b}[99Xq"), now: 0)), [.char("q")])
    }
}

final class KittyDetectionTests: XCTestCase {
    func testFlagsBeforeDA1MeansSupported() {
        var d = KittyDetection(sentAt: 0, timeout: 1)
        var dec = KeyDecoder()
        var results: [KittyDetection.Result] = []
        for e in dec.feed(Array("\u{1b}[?0u\u{1b}[?62;4c".utf8), now: 0.01) { if let r = d.observe(e) { results.append(r) } }
        XCTAssertEqual(results, [.supported])
    }

    func testDA1AloneMeansUnsupported() {
        var d = KittyDetection(sentAt: 0, timeout: 1)
        XCTAssertNil(d.observe(.key(.char("x"))))
        XCTAssertEqual(d.observe(.deviceAttributes), .unsupported)
        XCTAssertNil(d.observe(.kittyFlags(1)), "decided once")
        XCTAssertEqual(d.result, .unsupported)
    }

    func testNoReplyTimesOut() {
        var d = KittyDetection(sentAt: 5, timeout: 0.5)
        XCTAssertNil(d.tick(now: 5.4))
        XCTAssertEqual(d.tick(now: 5.5), .unsupported)
    }
}

final class KittyKeypadAndLayoutTests: XCTestCase {
    func testKeypadAndNonASCIIShift() {
        var d = KeyDecoder()
        let ev = d.feed(Array("\u{1b}[57414u\u{1b}[57400u\u{1b}[57419u\u{1b}[246;2u\u{1b}[55:38;2u".utf8), now: 0)
        XCTAssertEqual(ev, [.key(KeyEvent(.enter)), .key(.char("1")), .key(KeyEvent(.up)), .key(.char("Ö")), .key(.char("&"))],
                       "keypad keys, a shifted non-ASCII letter, and the alternate-key (flag 4) shifted code")
    }

    func testToolLogFocusAndKeys() {
        var m = ToolLogModel(calls: Fixtures.state().toolLog.calls, collapsed: true)
        m.focus()
        XCTAssertEqual(m.selected, 2)
        XCTAssertFalse(m.collapsed)
        XCTAssertEqual(m.handle(KeyEvent(.up)), .handled)
        XCTAssertEqual(m.selected, 1)
        XCTAssertEqual(m.handle(KeyEvent(.enter)), .handled)
        XCTAssertTrue(m.expanded)
        XCTAssertEqual(m.handle(KeyEvent(.escape)), .leave)
        XCTAssertFalse(m.focused)
        XCTAssertFalse(m.expanded)
    }
}
