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

    func testHiddenWhenTheBoxIsTooSmall() {
        let t = Thumbnail(width: 1, height: 1, rgb: [0, 0, 0], caption: "x")
        let grid = GridScreen(rows: 3, columns: 5)
        XCTAssertFalse(ThumbnailView.draw(t, in: Rect(row: 0, column: 0, rows: 3, columns: 5), on: grid))
        XCTAssertEqual(grid.cellsWritten, 0)
    }
}
