import XCTest
@testable import TUI

/// The meters' rows are redrawn a changed column at a time: what the screen then shows must be what a full
/// repaint of the same state shows, whatever the readings did in between.
final class CellwiseRedrawTests: XCTestCase {
    func testARowIsItsBytesAndRolesPaddedWithItsFill() throws {
        var line = StyledLine("ab", .meterLabel, fill: .statusBar)
        line.append("c", .meterHot)
        let cells = try XCTUnwrap(RowCells(line, width: 5))
        XCTAssertEqual(cells.bytes, Array("abc  ".utf8))
        XCTAssertEqual(cells.roles, [.meterLabel, .meterLabel, .meterHot, .statusBar, .statusBar])
        let cut = try XCTUnwrap(RowCells(line, width: 2))
        XCTAssertEqual(cut.bytes, Array("ab".utf8), "cut at the width")
        XCTAssertNil(RowCells(StyledLine("● talking"), width: 20), "not a byte a column")
        XCTAssertNil(RowCells(StyledLine("-∞ dB"), width: 20))
    }

    func testChangesCloseTogetherMakeOneStretchAndFarApartTwo() throws {
        func cells(_ s: String) throws -> RowCells { try XCTUnwrap(RowCells(StyledLine(s), width: 30)) }
        let old = try cells("[|||||     ]  -30 dB")
        XCTAssertEqual(try cells("[|||||     ]  -30 dB").changes(from: old), [])
        XCTAssertEqual(try cells("[|||||||   ]  -30 dB").changes(from: old), [6..<8])
        // The bar and the figure seven columns apart: one stretch; with a smaller gap allowed, two (a cursor
        // move costs about what a few cells do).
        XCTAssertEqual(try cells("[|||||||   ]  -24 dB").changes(from: old), [6..<17])
        XCTAssertEqual(try cells("[|||||||   ]  -24 dB").changes(from: old, gap: 4), [6..<8, 15..<17])
        // Only the role changed: still a change.
        var recoloured = StyledLine("[||", .meterLabel)
        recoloured.append("|||     ]  -30 dB", .meterHot)
        let mixed = try XCTUnwrap(RowCells(recoloured, width: 30))
        XCTAssertEqual(mixed.changes(from: try XCTUnwrap(RowCells(StyledLine("[|||||     ]  -30 dB", .meterLabel), width: 30))),
                       [3..<20])
        XCTAssertEqual(mixed.runs(in: 1..<5).map(\.text), ["||", "||"])
        XCTAssertEqual(mixed.runs(in: 1..<5).map(\.column), [1, 3])
        XCTAssertEqual(mixed.runs(in: 1..<5).map(\.role), [.meterLabel, .meterHot])
    }

    func testMetersDrawnAColumnAtATimeMatchAFullRepaintEveryFrame() {
        var rng = SystemRandomNumberGenerator()
        for (rows, columns) in [(24, 80), (30, 100), (12, 41)] {
            var state = Fixtures.state()
            let screen = GridScreen(rows: rows, columns: columns)
            let renderer = FrameRenderer(screen: screen)
            renderer.render(state)
            var written = 0
            for frame in 0..<600 {
                // Levels that creep, jump, fall silent and clip; the mic's words change width and script.
                func reading(_ old: LevelReading) -> LevelReading {
                    switch Int.random(in: 0..<20, using: &rng) {
                    case 0: return LevelReading(level: -.infinity, peak: nil, clipped: false)
                    case 1: return LevelReading(level: 0, peak: 0, clipped: true)
                    case 2...4: return LevelReading(level: Double(Int.random(in: -70...0, using: &rng)),
                                                    peak: Double(Int.random(in: -70...0, using: &rng)), clipped: false)
                    default:
                        let base = old.level.isFinite ? old.level : -60
                        let level = max(-70, min(0, base + Double(Int.random(in: -3...3, using: &rng))))
                        return LevelReading(level: level, peak: old.peak.map { max($0 - 1, level) } ?? level, clipped: false)
                    }
                }
                state.meters.speaker = reading(state.meters.speaker)
                if frame % 3 == 0 { state.meters.mic = reading(state.meters.mic) }
                if frame % 37 == 0 { state.meters.talking.toggle() }
                if frame % 53 == 0 { state.meters.micMuted.toggle() }
                if frame % 71 == 0 { state.meters.echoProtection = state.meters.echoProtection == nil ? "echo: canceller" : nil }
                screen.resetWriteCount()
                renderer.render(state, dirty: .meters)
                written += screen.cellsWritten

                let fresh = GridScreen(rows: rows, columns: columns)
                FrameRenderer(screen: fresh).render(state)
                guard screen.cells == fresh.cells else {
                    XCTFail("\(columns)x\(rows), frame \(frame): the screen differs from a full repaint:\n\(screen.text())\n---\n\(fresh.text())")
                    return
                }
            }
            // A full meters frame writes both rows whole; cell by cell is a fraction of that.
            XCTAssertLessThan(written, 600 * 2 * columns / 2, "\(columns)x\(rows): \(written) cells in 600 frames")
        }
    }
}
