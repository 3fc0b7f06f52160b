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
