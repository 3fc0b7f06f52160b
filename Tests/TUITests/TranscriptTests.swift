import XCTest
@testable import TUI

final class TranscriptTests: XCTestCase {
    func testDisplayWidths() {
        XCTAssertEqual(DisplayWidth.of("abc"), 3)
        XCTAssertEqual(DisplayWidth.of("世界"), 4)
        XCTAssertEqual(DisplayWidth.of("😀"), 2)
        XCTAssertEqual(DisplayWidth.of("👍🏽"), 2, "skin tone modifier joins")
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.of("❤️"), 2, "emoji presentation selector")
        XCTAssertEqual(DisplayWidth.of("한국어"), 6)
        XCTAssertEqual(DisplayWidth.of("🇯🇵"), 2, "a flag")
        XCTAssertEqual(DisplayWidth.of("👩‍💻"), 2, "a ZWJ sequence")
    }

    func testWrapRespectsWideCharactersAndWords() {
        let lines = WordWrap.wrap([StyledRun("日本語のテキストと English words together", .modelText)], width: 16, firstPrefix: StyledLine("ab  "), indent: 4)
        XCTAssertEqual(lines.map(\.text), ["ab  日本語のテキ", "    ストと", "    English", "    words", "    together"])
        XCTAssertTrue(lines.allSatisfy { $0.width <= 16 })
        let long = WordWrap.wrap([StyledRun("supercalifragilistic", .modelText)], width: 10, firstPrefix: StyledLine(), indent: 2)
        XCTAssertEqual(long.map(\.text), ["supercalif", "  ragilist", "  ic"])
    }

    func testGridPutsWideCharactersInTwoCells() {
        let g = GridScreen(rows: 1, columns: 6)
        g.put(row: 0, column: 0, text: "a世b😀", style: .plain)
        XCTAssertEqual(g.lines, ["a世b😀"])
        XCTAssertTrue(g.cells[0][2].isContinuation)
        XCTAssertTrue(g.cells[0][5].isContinuation)
        // A wide character that does not fit at the right edge is not drawn.
        g.put(row: 0, column: 5, text: "世", style: .plain)
        XCTAssertEqual(g.lines, ["a世b😀"])
        g.put(row: 0, column: 1, text: "x", style: .plain)
        XCTAssertEqual(g.lines, ["ax b😀"], "overwriting half a wide character blanks the other half")
    }

    func testScrollbackPagesAndMarker() {
        var s = UIState()
        s.transcript = Fixtures.longTranscript(turns: 50)
        s.toolLog.collapsed = true
        let g = GridScreen(rows: 24, columns: 80)
        let r = FrameRenderer(screen: g)
        r.render(s)
        XCTAssertTrue(g.text().contains("Answer 49"), "follows the newest line")
        r.scrollTranscript(.pageUp, in: &s)
        XCTAssertNotNil(s.transcript.scroll)
        r.render(s, dirty: .transcript)
        let last = (r.layout?.transcript.rows ?? 0) + 1
        XCTAssertTrue(g.lines[last].contains("↓ more below · End to follow"), g.text())
        XCTAssertFalse(g.text().contains("Answer 49"))
        // New messages arrive while scrolled back: the view stays, the marker says so.
        let before = g.lines[2]
        s.transcript.append(.user, "a new question")
        r.render(s, dirty: .transcript)
        XCTAssertEqual(g.lines[2], before)
        XCTAssertTrue(g.lines[last].contains("↓ new messages below · End to follow"))
        r.scrollTranscript(.top, in: &s)
        r.render(s, dirty: .transcript)
        XCTAssertTrue(g.lines[2].hasPrefix("you     Question 0:"), g.lines[2])
        r.scrollTranscript(.pageUp, in: &s)
        r.render(s, dirty: .transcript)
        XCTAssertTrue(g.lines[2].hasPrefix("you     Question 0:"), "clamped at the top")
        r.scrollTranscript(.pageDown, in: &s)
        r.render(s, dirty: .transcript)
        XCTAssertFalse(g.lines[2].hasPrefix("you     Question 0:"))
        r.scrollTranscript(.bottom, in: &s)
        XCTAssertNil(s.transcript.scroll)
        r.render(s, dirty: .transcript)
        XCTAssertTrue(g.text().contains("a new question"))
        XCTAssertFalse(g.text().contains("below"))
        // Paging down to the end resumes following.
        r.scrollTranscript(.pageUp, in: &s)
        for _ in 0..<3 { r.scrollTranscript(.pageDown, in: &s) }
        XCTAssertNil(s.transcript.scroll)
    }

    func testLineScrollMovesOneRow() {
        var s = UIState()
        s.transcript = Fixtures.longTranscript(turns: 20)
        let (g, r) = Fixtures.render(s, rows: 24, columns: 80)
        let top = g.lines[2]
        r.scrollTranscript(.lines(-1), in: &s)
        r.render(s, dirty: .transcript)
        XCTAssertEqual(g.lines[3], top)
    }

    func testShortConversationCannotScroll() {
        var s = Fixtures.state()
        let (_, r) = Fixtures.render(s, rows: 40, columns: 120)
        r.scrollTranscript(.pageUp, in: &s)
        XCTAssertNil(s.transcript.scroll)
    }

    func testMetersOnlyFrameTouchesOnlyMeterRows() {
        var s = Fixtures.state()
        let (g, r) = Fixtures.render(s, rows: 24, columns: 80)
        let before = g.lines
        g.resetWriteCount()
        s.meters.mic.level = -40
        s.meters.speaker.clipped = false
        r.render(s, dirty: .meters)
        // The mic row ("● talking": not a byte a column) is written whole; the speaker row only where it
        // changed, its clip mark.
        XCTAssertEqual(g.cellsWritten, 80 + 4, "the mic row and the speaker's CLIP")
        let after = g.lines
        let m = r.layout?.meters.row ?? 0
        XCTAssertEqual(m, 21)
        for i in 0..<24 where i != m && i != m + 1 { XCTAssertEqual(before[i], after[i]) }
        XCTAssertNotEqual(before[m], after[m])
        XCTAssertNotEqual(before[m + 1], after[m + 1])
        // Nothing changed: nothing written.
        g.resetWriteCount()
        r.render(s, dirty: .meters)
        XCTAssertEqual(g.cellsWritten, 0)
    }

    func testOverlayStaysOnTopOfRedrawnRegions() {
        var s = Fixtures.state()
        s.overlay = .voiceMenu(VoiceMenu(voices: Fixtures.voices, current: "Puck"))
        let (g, r) = Fixtures.render(s, rows: 24, columns: 80)
        let withMenu = g.lines
        s.transcript.append(.model, "more text arrives under the menu")
        s.meters.mic.level = -3
        r.render(s, dirty: [.transcript, .meters])
        XCTAssertEqual(g.lines[4], withMenu[4])
        XCTAssertEqual(g.lines[21], withMenu[21], "the menu's bottom edge covers the mic meter")
        s.overlay = nil
        r.render(s, dirty: [])
        XCTAssertFalse(g.text().contains("Voice (30)"), "closing the overlay repaints what was under it")
    }

    func testPeakHold() {
        var p = PeakHold(holdTime: 1, decayPerSecond: 10)
        XCTAssertEqual(p.update(level: -10, now: 0), -10)
        XCTAssertEqual(p.update(level: -30, now: 0.5), -10, "held")
        XCTAssertEqual(p.update(level: -30, now: 1.5), -15, accuracy: 1e-9)
        XCTAssertEqual(p.update(level: -5, now: 1.6), -5)
    }

    func testResizeRelaysOut() {
        let s = Fixtures.state()
        let g = GridScreen(rows: 24, columns: 80)
        let r = FrameRenderer(screen: g)
        r.render(s)
        XCTAssertTrue(g.lines[r.layout?.toolLog?.row ?? 0].hasPrefix("─ tool calls"))
        g.resize(rows: 40, columns: 120)
        r.render(s, dirty: [])
        XCTAssertTrue(g.lines[2].contains("│─ tool calls"), "tool log moves to the right at ≥ 100 columns")
        g.resize(rows: 10, columns: 30)
        r.render(s, dirty: .meters)
        XCTAssertTrue(g.text().contains("terminal too small"))
    }
}

final class TranscriptStreamingTests: XCTestCase {
    func testStreamFinishInterrupt() {
        var t = TranscriptModel()
        let u = t.stream(.user, "what is")
        XCTAssertEqual(t.stream(.user, " the time"), u)
        let m = t.stream(.model, "It is")
        XCTAssertEqual(t.entries[u].interim, "what is the time")
        t.finishTurn(.user)
        XCTAssertEqual(t.entries[u].text, "what is the time")
        XCTAssertEqual(t.entries[u].interim, "")
        XCTAssertNil(t.openUserTurn)
        t.stream(.model, " ten")
        t.interruptModelTurn()
        XCTAssertEqual(t.entries[m], TranscriptEntry(id: m, speaker: .model, text: "It is ten", interrupted: true))
        XCTAssertNotEqual(t.stream(.model, "Next"), m, "a new turn after the interruption")
        t.stream(.system, "reconnected")
        XCTAssertEqual(t.entries.last?.speaker, .system)
    }

    func testInterimIsStyledApartFromFinishedText() {
        var s = UIState()
        s.transcript.append(.model, "done ", interim: "streaming")
        let (g, _) = Fixtures.render(s, rows: 24, columns: 80)
        XCTAssertTrue(g.lines[2].hasPrefix("gemini  done streaming"))
        XCTAssertEqual(g.style(row: 2, column: 8), Theme.default.style(.modelText))
        XCTAssertEqual(g.style(row: 2, column: 13), Theme.default.style(.modelInterim))
        XCTAssertEqual(g.style(row: 2, column: 0), Theme.default.style(.speakerLabel))
    }
}

final class OverlayRedrawTests: XCTestCase {
    func testMetersBesideAMenuDoNotRedrawTheMenu() {
        var s = Fixtures.state()
        s.overlay = .confirm(ConfirmModel(question: "Run shell command?", detail: "ls"))
        let (g, r) = Fixtures.render(s, rows: 40, columns: 120)
        g.resetWriteCount()
        s.meters.mic.level = -20
        r.render(s, dirty: .meters)
        XCTAssertEqual(g.cellsWritten, 120, "only the mic meter row, not the menu")
        XCTAssertTrue(g.text().contains("Run shell command?"))
    }
}
