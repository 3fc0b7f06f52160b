import XCTest
@testable import TUI

/// The header's cost, context fill and budget warning, and the usage overlay, drawn on the in-memory grid.
final class UsageViewTests: XCTestCase {
    static let table = UsageTable(
        rows: (1...12).map { i in
            UsageTable.Row(turn: i, input: 500 * i, inputText: 300 * i, inputAudio: 200 * i - 25, inputImageVideo: 0, cached: i > 1 ? 100 : nil,
                           output: 40 + i, thoughts: 17, cost: "$0.0012", cumulative: "$0.\(String(format: "%04d", 12 * i))")
        } + [UsageTable.Row(turn: 13, input: nil, inputText: nil, inputAudio: nil, inputImageVideo: nil, cached: nil, output: nil,
                            thoughts: nil, cost: "?", cumulative: "≥$0.0144")],
        notes: ["13 turns · 41,230 tokens · ≈ $?", "context now 6,540 of 131,072 (5%) · sliding window on", "prices: AI Studio list prices for gemini-3.8-live"],
        warning: "budget $0.05: $0.04 spent (88%)")

    func testTheHeaderShowsCostContextAndTheBudgetInItsColours() {
        var m = HeaderModel(model: "gemini-3.8-live", voice: "Puck", connection: .live, sessionAge: 65, tokens: 41230, pushToTalk: .tapToggle)
        m.cost = "≈ $0.07"
        m.contextPercent = 5
        var line = HeaderView.render(m, width: 120)[1]
        XCTAssertTrue(line.text.hasPrefix(" session 1:05  tokens 41,230  ≈ $0.07  context 5%  "), line.text)
        XCTAssertTrue(line.runs.contains(StyledRun("≈ $0.07", .header)))
        m.budget = .warning(percent: 84)
        line = HeaderView.render(m, width: 120)[1]
        XCTAssertTrue(line.runs.contains(StyledRun("≈ $0.07 budget 84%", .stateResuming)), "\(line.runs)")
        m.budget = .reached
        line = HeaderView.render(m, width: 80)[1]
        XCTAssertTrue(line.runs.contains(StyledRun("≈ $0.07 budget reached", .stateFailed)), "\(line.runs)")
        XCTAssertEqual(line.width, 80)
    }

    func testTheUsageViewShowsEveryColumnWhenWideAndTheNewestTurnsWhenShort() {
        var s = Fixtures.state()
        s.overlay = .usage(Self.table)
        let (wide, _) = Fixtures.render(s, rows: 40, columns: 120)
        let text = wide.text()
        for title in ["Usage and cost", "turn", "in", "text", "audio", "img/vid", "cached", "out", "thought", "cost", "total", "$ or Esc closes"] {
            XCTAssertTrue(text.contains(title), "\(title) in\n\(text)")
        }
        XCTAssertTrue(text.contains("6,000"), "turn 12's input, grouped")
        XCTAssertTrue(text.contains("≥$0.0144"), "an unpriced turn says so in the running total")
        XCTAssertTrue(text.contains("budget $0.05: $0.04 spent (88%)"))
        XCTAssertTrue(text.contains("13 turns · 41,230 tokens · ≈ $?"))

        let (small, _) = Fixtures.render(s, rows: 16, columns: 60)
        let smallText = small.text()
        XCTAssertTrue(smallText.contains("earlier turns"), smallText)
        XCTAssertTrue(smallText.contains("≥$0.0144"), "the newest turn stays: \(smallText)")
        XCTAssertFalse(smallText.contains("thought"), "narrow: the thoughts column goes first")
        XCTAssertTrue(smallText.contains("cost"), smallText)
    }

    func testAnEmptyTableSaysWhenUsageComes() {
        var s = Fixtures.state()
        s.overlay = .usage(UsageTable(rows: [], notes: ["0 turns · 0 tokens · ≈ $0.00"]))
        let (g, _) = Fixtures.render(s, rows: 24, columns: 80)
        XCTAssertTrue(g.text().contains("no usage reported yet"), g.text())
    }

    func testTheDollarKeyOpensTheUsageViewAndIsInTheHelp() {
        XCTAssertEqual(KeyMap.default.command(for: KeyEvent(.character("$"))), .usageStats)
        XCTAssertTrue(OverlayView.help(KeyMap.default).contains { $0.text.contains("usage per turn") })
    }
}
