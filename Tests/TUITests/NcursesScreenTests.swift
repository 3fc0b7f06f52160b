import Foundation
import XCTest
@testable import TUI

/// The ncurses backend writing to a file through `newterm`, to check what reaches a terminal.
final class NcursesScreenTests: XCTestCase {
    func frameBytes(term: String, noColor: Bool, environment: [String: String] = [:], _ body: (NcursesScreen) -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-nc-\(getpid())-\(UUID().uuidString)").path
        guard let out = fopen(path, "w+"), let input = fopen("/dev/null", "r") else { throw XCTSkip("cannot open temp files") }
        defer { fclose(out); fclose(input); unlink(path) }
        guard let screen = NcursesScreen.offscreen(term: term, rows: 24, columns: 80, output: out, input: input, noColor: noColor, environment: environment) else {
            throw XCTSkip("no terminfo for \(term)")
        }
        body(screen)
        NcursesScreen.endOffscreen()
        fflush(out)
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    func testColoursWideCharactersAndNoColor() throws {
        let state = Fixtures.state()
        let colour = try frameBytes(term: "xterm-256color", noColor: false) { s in
            XCTAssertEqual(s.colorMode, .full)
            XCTAssertEqual(s.size, Size(rows: 24, columns: 80))
            FrameRenderer(screen: s).render(state)
        }
        XCTAssertTrue(colour.contains("\u{1b}[38;5;117m") || colour.contains("38;5;117"), "256-colour foreground for user text")
        XCTAssertTrue(colour.contains("東京の天気は？"), "wide characters written as UTF-8")
        XCTAssertTrue(colour.contains("😀"))

        let plain = try frameBytes(term: "xterm-256color", noColor: true) { s in
            XCTAssertEqual(s.colorMode, .none)
            FrameRenderer(screen: s).render(state)
        }
        XCTAssertFalse(plain.contains("38;5;"), "NO_COLOR: no colour sequences")
        XCTAssertFalse(plain.contains("48;5;"))
        XCTAssertTrue(plain.contains("\u{1b}[7m") || plain.contains(";7m"), "roles with a background fall back to reverse video")
    }

    /// Printable ASCII goes to curses in one call (`putASCII`): what reaches the terminal is what the Character
    /// path writes for it, for bare strings at the edges of the printable range and for whole meter rows.
    func testPrintableASCIIReachesTheTerminalAsTheCharacterPathWritesIt() throws {
        let styles = [CellStyle.plain, Theme.default.style(.meterLow), Theme.default.style(.meterHot),
                      CellStyle(fg: .index(117), bg: .index(236), attributes: [.bold])]
        var texts = ["", " ", "|", "-100 dB", String((0x20...0x7e).map { Character(UnicodeScalar(UInt8($0))) }),
                     String(repeating: "|", count: 80)]
        for level in stride(from: -70.0, through: 3, by: 7.3) {
            let m = MetersModel(mic: LevelReading(level: level, peak: min(0, level + 6), clipped: level > 0),
                                speaker: LevelReading(level: level - 10, peak: nil, clipped: false))
            for line in MetersView.render(m, width: 80) { texts += line.runs.map(\.text) }
        }
        XCTAssertTrue(texts.allSatisfy { DisplayWidth.isPrintableASCII($0) }, "the meter rows are printable ASCII")
        func frame(_ write: (NcursesScreen, Int, String, CellStyle) -> Void) throws -> String {
            try frameBytes(term: "xterm-256color", noColor: false) { s in
                for (i, text) in texts.enumerated() { write(s, i % 24, text, styles[i % styles.count]) }
                s.present()
            }
        }
        let fast = try frame { s, row, text, style in s.put(row: row, column: row % 7, text: text, style: style) }
        let characters = try frame { s, row, text, style in
            s.put(row: row, column: 0, text: "", style: style)  // the attributes, nothing written
            s.putCharacters(row: row, column: row % 7, text: text)
        }
        XCTAssertGreaterThan(fast.utf8.count, 1000)
        XCTAssertEqual(fast, characters)
    }

    func testPicturesGetTwentyFourBitColourOnlyWhereTheTerminalTakesIt() throws {
        var ui = Fixtures.state()
        ui.thumbnail = Thumbnail(width: 2, height: 2, rgb: [250, 10, 20, 250, 10, 20, 1, 2, 200, 1, 2, 200], caption: "x.png 2×2")
        let direct = try frameBytes(term: "xterm-256color", noColor: false, environment: ["COLORTERM": "24bit"]) { s in
            XCTAssertTrue(s.trueColor)
            ThumbnailView.draw(ui.thumbnail!, in: Rect(row: 0, column: 0, rows: 5, columns: 10), on: s)
            s.present()
        }
        XCTAssertTrue(direct.contains("38;2;250;10;20") && direct.contains("48;2;1;2;200"), "24-bit SGR for the picture")
        XCTAssertTrue(direct.contains("\u{1b}7") && direct.contains("\u{1b}8"), "cursor and attributes saved and restored around it")
        let palette = try frameBytes(term: "xterm-256color", noColor: false) { s in
            XCTAssertFalse(s.trueColor, "no COLORTERM and no RGB in terminfo")
            ThumbnailView.draw(ui.thumbnail!, in: Rect(row: 0, column: 0, rows: 5, columns: 10), on: s)
            s.present()
        }
        XCTAssertFalse(palette.contains("38;2;"))
        XCTAssertTrue(palette.contains("38;5;\(Palette.nearest256(r: 250, g: 10, b: 20))"), "the nearest 256-colour entry instead")
        XCTAssertTrue(NcursesScreen.terminalTakesTrueColor(environment: [:], terminfoFlag: { $0 == "RGB" }))
        XCTAssertFalse(NcursesScreen.terminalTakesTrueColor(environment: ["COLORTERM": "yes"], terminfoFlag: { _ in false }))
    }

    func testEightColourTerminalGetsNearestColours() throws {
        let state = Fixtures.state()
        let out = try frameBytes(term: "xterm", noColor: false) { s in
            XCTAssertEqual(s.colorMode, .eight)
            FrameRenderer(screen: s).render(state)
        }
        XCTAssertFalse(out.contains("38;5;"), "no 256-colour sequences on an 8-colour terminal")
        XCTAssertTrue(out.contains("\u{1b}[3"), "8-colour foregrounds")
        XCTAssertTrue(out.contains("\u{1b}[7m") || out.contains(";7m") || out.contains("\u{1b}[7;"), "grey panels become reverse video")
    }

    func testStartNeedsATerminal() {
        guard isatty(0) == 0 || isatty(1) == 0 else { return }
        XCTAssertThrowsError(try Terminal.start()) { e in
            XCTAssertEqual(e as? TerminalError, .notATerminal)
            XCTAssertTrue((e as? TerminalError)?.hint.contains("parley ask") ?? false)
        }
    }
}
