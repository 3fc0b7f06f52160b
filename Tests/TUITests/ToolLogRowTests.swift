import XCTest

@testable import TUI

/// A tool call's row in the log: its name is shortened only when it does not fit, and then keeps both ends.
final class ToolLogRowTests: XCTestCase {
    func row(_ c: ToolCallEntry, width: Int) -> String {
        ToolLogView.row(c, width: width, selected: false).text
    }

    /// The demo's clock tool in the side pane of a 120-column terminal (40 columns) came out as `get…me…`:
    /// the async tag took the row and the arguments' ellipsis followed the name's.
    func testAShortNameIsShownWholeInAFortyColumnPane() {
        let calls = [
            ToolCallEntry(id: "1", name: "get_current_time", arguments: "{}", state: .ok, duration: 0.003,
                          behavior: "NON_BLOCKING", scheduling: "WHEN_IDLE"),
            ToolCallEntry(id: "2", name: "get_current_time", arguments: #"{"timezone":"Europe/Paris"}"#, state: .running,
                          duration: 1.2, behavior: "NON_BLOCKING", scheduling: "INTERRUPT", partials: ["a", "b"]),
            ToolCallEntry(id: "3", name: "get_current_time", arguments: "{}", state: .ok, duration: 0.003),
        ]
        for c in calls {
            let text = row(c, width: 40)
            XCTAssertEqual(DisplayWidth.of(text), 40, text)
            XCTAssertTrue(text.hasPrefix(" get_current_time"), "the whole name: [\(text)]")
            XCTAssertTrue(text.contains(c.state.rawValue), "the state stays: [\(text)]")
            XCTAssertFalse(text.contains("……"), text)
        }
        // Where there is room, the async tag and the arguments come back.
        let wide = row(calls[0], width: 60)
        XCTAssertTrue(wide.contains("async·when_idle"), wide)
        XCTAssertTrue(wide.contains("{}"), wide)
    }

    func testANameThatDoesNotFitKeepsBothEndsAndNoStrayEllipsis() {
        let c = ToolCallEntry(id: "1", name: "mcp_filesystem_read_multiple_files_with_metadata", arguments: #"{"paths":["a"]}"#,
                              state: .ok, duration: 0.2, behavior: "NON_BLOCKING", scheduling: "SILENT")
        for width in [32, 40, 48] {
            let text = row(c, width: width)
            XCTAssertEqual(DisplayWidth.of(text), width, text)
            let name = text.dropFirst().prefix { $0 != " " }
            XCTAssertTrue(name.hasPrefix("mcp_fil"), "the start of the name at \(width): [\(text)]")
            XCTAssertTrue(name.hasSuffix("metadata") || name.hasSuffix("tadata"), "its end at \(width): [\(text)]")
            XCTAssertEqual(name.filter { $0 == "…" }.count, 1, "one ellipsis, in the middle: [\(text)]")
        }
    }
}

/// The help box at 80×24 leaves the header and the status line in view and scrolls to show every key.
final class HelpOverlayTests: XCTestCase {
    func rows(_ top: Int) -> [String] {
        var s = UIState()
        s.overlay = .help(top: top)
        let (grid, _) = Fixtures.render(s, rows: 24, columns: 80)
        return grid.text().components(separatedBy: "\n")
    }

    func testTheHelpBoxFitsAnEightyByTwentyFourTerminal() {
        let first = rows(0)
        let top = first.firstIndex { $0.contains("┌─ Keys") }
        let bottom = first.lastIndex { $0.contains("┘") }
        XCTAssertNotNil(top, first.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(top ?? 0, 2, "the header stays in view:\n\(first.joined(separator: "\n"))")
        XCTAssertLessThanOrEqual(bottom ?? 99, 21, "so does the status line:\n\(first.joined(separator: "\n"))")
        XCTAssertTrue(first.contains { $0.contains("more") && $0.contains("↓") }, "it says there is more below")
        // Scrolled to its end, the rest of the keys are there, and the last line.
        let end = OverlayView.helpMaxTop(keyMap: .default, screen: Size(rows: 24, columns: 80))
        XCTAssertGreaterThan(end, 0)
        let last = rows(end).joined(separator: "\n")
        XCTAssertTrue(last.contains("Input line:"), last)
        XCTAssertTrue(last.contains("(end)"), last)
        // Every key of the map is on one screen or the other.
        let seen = rows(0).joined() + last
        for b in KeyMap.default.bindings { XCTAssertTrue(seen.contains(b.command.summary), "\(b.command.summary)") }
    }

    func testATallTerminalShowsTheWholeListAtOnce() {
        var s = UIState()
        s.overlay = .help(top: 0)
        let (grid, _) = Fixtures.render(s, rows: 40, columns: 120)
        let text = grid.text()
        XCTAssertTrue(text.contains("Input line:"), text)
        XCTAssertFalse(text.contains("more"), text)
        XCTAssertEqual(OverlayView.helpMaxTop(keyMap: .default, screen: Size(rows: 40, columns: 120)), 0)
    }
}
