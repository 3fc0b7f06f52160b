import XCTest

@testable import TUI

/// Wide (CJK, emoji) and ambiguous-width (`●`, `│`, `…`) text everywhere text is shown or typed: every view keeps
/// its exact width and the frame's rules stay in their columns.
final class WideTextTests: XCTestCase {
    static let samples = [
        "東京の天気は？ 😀 ありがとう", "●│● ambiguous │ rules ●", "flags 🇯🇵🇫🇷 and ❤️ hearts", "e\u{301}te\u{301} combining",
        "한국어 텍스트와 中文文本 mixed with English", String(repeating: "長", count: 90), "👩‍👩‍👧 family 👍🏽 thumbs",
    ]

    func testMiddleElisionKeepsBothEndsAndTheWidth() {
        let name = "mcp_filesystem_read_multiple_files"
        let short = name.elidedInMiddle(to: 16)
        XCTAssertEqual(DisplayWidth.of(short), 16)
        XCTAssertTrue(short.hasPrefix("mcp_fil"), short)
        XCTAssertTrue(short.hasSuffix("e_files"), short)
        XCTAssertTrue(short.contains("…"))
        XCTAssertEqual("short".elidedInMiddle(to: 16), "short")
        for width in 1...12 {
            let wide = "検索ツールとても長い名前です".elidedInMiddle(to: width)
            XCTAssertLessThanOrEqual(DisplayWidth.of(wide), width, wide)
            XCTAssertGreaterThanOrEqual(DisplayWidth.of(wide), width - 1, "at most one column lost to a wide character: \(wide)")
        }
    }

    func testLongToolNamesInTheSidePaneAreElidedInTheMiddle() {
        var s = UIState()
        s.toolLog.calls = [
            ToolCallEntry(id: "1", name: "mcp_filesystem_read_multiple_files_with_metadata", server: "files",
                          arguments: #"{"paths":["a","b"]}"#, state: .ok, duration: 0.2),
            ToolCallEntry(id: "2", name: "ツール_とても長い名前の検索ツール_end", arguments: "{}", state: .running, duration: 1.5),
        ]
        let (grid, _) = Fixtures.render(s, rows: 30, columns: 120)
        let text = grid.text()
        XCTAssertTrue(text.contains(" mcp_fil…etadata (files)"), "both ends of the name, then its server:\n\(text)")
        XCTAssertTrue(text.contains(" ツール_とて…ツール_end"), "wide names too:\n\(text)")
        XCTAssertTrue(text.contains("running"), "the state column survives the long name:\n\(text)")
        assertRulesIntact(grid, s)
    }

    func testEveryViewKeepsItsWidthWithWideText() {
        for width in [20, 33, 40, 61] {
            var header = HeaderModel(model: "模型-😀-●", voice: "声│●", connection: .failed(reason: "接続できません 😀"),
                                     pushToTalk: .tapToggle, demo: true)
            header.sessionAge = 61
            for line in HeaderView.render(header, width: width) { XCTAssertEqual(line.width, width, "header at \(width): \(line.text)") }
            for sample in Self.samples {
                XCTAssertEqual(StatusLineView.render(status: sample, hints: [("?", "ヘルプ")], width: width).width, width)
                var t = TranscriptModel()
                t.append(.user, sample)
                t.append(.model, sample, interim: " 続き●", interrupted: false)
                let size = Size(rows: 12, columns: width)
                let lines = TranscriptView.render(t, size: size, layout: TranscriptLayout())
                // Transcript rows are not padded (the renderer clears the region); they must never overflow.
                for line in lines { XCTAssertLessThanOrEqual(line.width, width, "transcript at \(width): \(line.text)") }
                var log = ToolLogModel()
                log.calls = [ToolCallEntry(id: "1", name: sample, server: "●", arguments: sample, result: sample, state: .error, duration: 2)]
                log.focused = true
                log.selected = 0
                log.expanded = true
                for line in ToolLogView.render(log, size: Size(rows: 8, columns: width)) {
                    XCTAssertEqual(line.width, width, "tool log at \(width): \(line.text)")
                }
            }
        }
    }

    func testTypingAndMovingOverWideCharactersKeepsTheCursorInView() {
        var e = LineEditor()
        let typed = "漢字😀●│ and ascii 한국어 " + String(repeating: "長", count: 30)
        e.insert(typed)
        for width in [12, 25, 40] {
            var moving = e
            // From the end to the start and back, one character at a time.
            for _ in 0...typed.count + 1 {
                checkInputLine(moving, width: width)
                _ = moving.handle(KeyEvent(.left))
            }
            for _ in 0...typed.count + 1 {
                checkInputLine(moving, width: width)
                _ = moving.handle(KeyEvent(.right))
            }
        }
    }

    func testWholeFramesWithWideTextKeepTheirRules() {
        var s = Fixtures.state()
        for sample in Self.samples { s.transcript.append(.model, sample) }
        s.header.voice = "声●"
        s.toolLog.calls.append(ToolCallEntry(id: "9", name: Self.samples[0], server: "│", arguments: Self.samples[1], state: .ok, duration: 0.1))
        s.input = LineEditor()
        s.input?.insert("入力 😀 ●")
        for (rows, columns) in [(24, 80), (30, 100), (40, 133)] {
            let (grid, _) = Fixtures.render(s, rows: rows, columns: columns)
            assertRulesIntact(grid, s)
            XCTAssertTrue(grid.text().contains("入力 😀 ●"), grid.text())
        }
    }

    /// The input row is exactly `width` columns and shows the cursor cell.
    func checkInputLine(_ e: LineEditor, width: Int, file: StaticString = #filePath, line: UInt = #line) {
        let row = InputLineView.render(e, width: width)
        XCTAssertEqual(row.width, width, "input row: \(row.text)", file: file, line: line)
        XCTAssertTrue(row.runs.contains { $0.role == .inputCursor }, "cursor \(e.cursor) not shown in \(row.text)", file: file, line: line)
    }

    /// The side pane's rule is a `│` in its column on every row it spans, whatever the transcript holds.
    func assertRulesIntact(_ grid: GridScreen, _ s: UIState, file: StaticString = #filePath, line: UInt = #line) {
        let layout = FrameLayout(size: grid.size, state: s)
        guard let rule = layout.toolLogRule else { return }
        for r in rule.row..<(rule.row + rule.rows) {
            let cell = grid.cells[r][rule.column]
            XCTAssertEqual(cell.character, "│", "row \(r): \(grid.lines[r])", file: file, line: line)
            XCTAssertFalse(cell.isContinuation, file: file, line: line)
        }
    }
}

/// The scalar-at-a-time width (`DisplayWidth.widthOfUnjoinedScalars`, the meters' and hints' text) agrees with
/// the grapheme walk wherever it answers, and leaves to the walk every string in which scalars may join.
final class UnjoinedScalarWidthTests: XCTestCase {
    /// The grapheme walk, as `DisplayWidth.of` does it when no shortcut applies.
    static func graphemeWidth(_ s: String) -> Int { s.reduce(0) { $0 + DisplayWidth.of($1) } }

    func testTheShortcutAgreesWithTheGraphemeWalk() {
        let answered = ["● talking", "-∞ dB", "mic idle…", "│ rules ─┼─ ▁▂▃█ ←→", "café · naïve — “quoted”", "a\r\nb", "\u{AD}soft",
                        "€ ± × ÷ ¶ §", "\u{2028}\u{2060}zero", "☀ ★ ♥ ✓"]
        for s in answered {
            XCTAssertEqual(DisplayWidth.widthOfUnjoinedScalars(s), Self.graphemeWidth(s), s)
            XCTAssertEqual(DisplayWidth.of(s), Self.graphemeWidth(s), s)
            for columns in 0...DisplayWidth.of(s) + 1 {
                let cut = s.fittedPrefix(columns: columns)
                XCTAssertTrue(s.hasPrefix(cut), "\(s) at \(columns)")
                XCTAssertLessThanOrEqual(DisplayWidth.of(cut), columns, "\(s) at \(columns)")
                // The longest such prefix: one more character would not fit.
                if cut.count < s.count {
                    let next = String(s.prefix(cut.count + 1))
                    XCTAssertGreaterThan(DisplayWidth.of(next), columns, "\(s) at \(columns)")
                }
            }
        }
    }

    func testStringsWhoseScalarsMayJoinTakeTheGraphemeWalk() {
        // A combining accent, a Devanagari spacing mark, Hangul jamo, an emoji with its presentation selector, a
        // ZWJ sequence, a skin tone, a flag, a symbol with a combining enclosing mark: each one grapheme of several
        // scalars. For the jamo, the vowel sign, the selector and the ZWJ sequence the scalars' widths summed would
        // be wrong (the three checked below, and 2 for the ZWJ sequence where it is 1).
        let joined = ["e\u{301}", "क\u{93E}", "\u{1100}\u{1161}\u{11A8}", "❤\u{FE0F}", "☀\u{200D}☀", "👍🏽", "🇯🇵", "1\u{20E3}"]
        for s in joined {
            XCTAssertNil(DisplayWidth.widthOfUnjoinedScalars(s), s)
            XCTAssertEqual(DisplayWidth.of(s), Self.graphemeWidth(s), s)
        }
        XCTAssertEqual(DisplayWidth.of("\u{1100}\u{1161}\u{11A8}"), 2, "a Hangul syllable in jamo is one wide cell")
        XCTAssertEqual(DisplayWidth.of("क\u{93E}"), 1, "a consonant and its vowel sign are one cell")
        XCTAssertEqual(DisplayWidth.of("❤\u{FE0F}"), 2, "emoji presentation")
    }
}
