import XCTest

@testable import TUI

final class ThumbnailViewTests: XCTestCase {
    func testHalfBlocksCarryTheUpperAndLowerPixelColours() {
        // 2×2: top row red, bottom row blue.
        let t = Thumbnail(width: 2, height: 2, rgb: [255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255], caption: "red.png 2×2")
        let grid = GridScreen(rows: 6, columns: 20)
        XCTAssertTrue(ThumbnailView.draw(t, in: Rect(row: 0, column: 0, rows: 5, columns: 12), on: grid))
        let red = Color.index(Palette.nearest256(r: 255, g: 0, b: 0)), blue = Color.index(Palette.nearest256(r: 0, g: 0, b: 255))
        // Scaled 4×: 8 pixel rows in 4 cell rows, the top two red, the bottom two blue.
        XCTAssertEqual(grid.cells[0][0].character, "▀")
        XCTAssertEqual((0..<4).map { [grid.cells[$0][7].style.fg, grid.cells[$0][7].style.bg] }, [[red, red], [red, red], [blue, blue], [blue, blue]])
        XCTAssertEqual(String(grid.cells[4].prefix(11).compactMap(\.character)), "red.png 2×2")
    }

    func testTrueColourScreensGetTheExactPixelColours() {
        let t = Thumbnail(width: 2, height: 2, rgb: [250, 10, 20, 250, 10, 20, 1, 2, 200, 1, 2, 200], caption: "x.png 2×2")
        let grid = GridScreen(rows: 6, columns: 20)
        grid.trueColor = true
        XCTAssertTrue(ThumbnailView.draw(t, in: Rect(row: 0, column: 0, rows: 5, columns: 12), on: grid))
        XCTAssertEqual([grid.cells[1][0].style.fg, grid.cells[1][0].style.bg], [.rgb(250, 10, 20), .rgb(250, 10, 20)])
        XCTAssertEqual([grid.cells[2][0].style.fg, grid.cells[2][0].style.bg], [.rgb(1, 2, 200), .rgb(1, 2, 200)])
        XCTAssertEqual(Color.rgb(250, 10, 20).paletteColor, .index(Palette.nearest256(r: 250, g: 10, b: 20)), "the 256-colour fallback")
    }

    func testTheSidePaneShowsTheLastPictureOnlyWhenThereIsRoom() {
        var ui = Fixtures.state()
        ui.thumbnail = Thumbnail(width: 4, height: 2, rgb: Array(repeating: 200, count: 24), caption: "red.png 64×48")
        let wide = FrameLayout(size: Size(rows: 40, columns: 120), state: ui)
        let box = try? XCTUnwrap(wide.thumbnail)
        XCTAssertEqual(box?.rows, 10)
        XCTAssertEqual(box.map { $0.row + $0.rows }, wide.toolLog.map { $0.row + $0.rows + 10 }, "at the foot of the side pane, under the tool log")
        XCTAssertNil(FrameLayout(size: Size(rows: 40, columns: 90), state: ui).thumbnail, "no side pane: no picture")
        XCTAssertNil(FrameLayout(size: Size(rows: 14, columns: 120), state: ui).thumbnail, "too short: no picture")

        let grid = GridScreen(rows: 40, columns: 120)
        grid.trueColor = true
        FrameRenderer(screen: grid).render(ui)
        let bottom = (box?.row ?? 0) + (box?.rows ?? 1) - 1
        XCTAssertEqual(String(grid.cells[bottom].dropFirst(box?.column ?? 0).prefix(13).compactMap(\.character)), "red.png 64×48")
        XCTAssertEqual(grid.cells[box?.row ?? 0][box?.column ?? 0].character, "▀")
        XCTAssertEqual(grid.cells[box?.row ?? 0][box?.column ?? 0].style.fg, .rgb(200, 200, 200))
    }

    func testHiddenWhenTheBoxIsTooSmall() {
        let t = Thumbnail(width: 1, height: 1, rgb: [0, 0, 0], caption: "x")
        let grid = GridScreen(rows: 3, columns: 5)
        XCTAssertFalse(ThumbnailView.draw(t, in: Rect(row: 0, column: 0, rows: 3, columns: 5), on: grid))
        XCTAssertEqual(grid.cellsWritten, 0)
    }
}
