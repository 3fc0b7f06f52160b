import XCTest

@testable import TUI

final class ToolLogStatesTests: XCTestCase {
    func testEveryCallStateIsShownInTheLog() {
        var s = UIState()
        s.toolLog.calls = ToolCallState.allCases.enumerated().map { i, state in
            ToolCallEntry(id: "\(i)", name: "tool\(i)", server: i == 1 ? "mcp" : nil, arguments: "{}", result: nil, state: state,
                          duration: state == .pending ? nil : 0.012)
        }
        for (rows, columns) in [(40, 100), (40, 120)] {  // the side pane; at 80×24 a strip shows the newest calls
            let (grid, _) = Fixtures.render(s, rows: rows, columns: columns)
            let text = grid.text()
            for state in ToolCallState.allCases {
                XCTAssertTrue(text.contains(state.rawValue), "\(state) at \(columns)×\(rows):\n\(text)")
            }
            XCTAssertTrue(text.contains("tool1 (mcp)"), "the server a call went to:\n\(text)")
        }
    }
}
