/// An in-memory `Screen` for tests and benchmarks: a grid of cells holding what a person would see.
public final class GridScreen: Screen {
    /// One cell: a grapheme (empty for the right half of a wide character) and its style.
    public struct Cell: Sendable, Hashable {
        public var character: Character?
        public var style: CellStyle
        /// True for the second cell of a double-width character.
        public var isContinuation: Bool
    }

    public private(set) var size: Size
    public private(set) var cells: [[Cell]]
    /// Number of `present()` calls, for tests.
    public private(set) var presentCount = 0
    /// Cells written since the grid was created or `resetWriteCount()` was called.
    public private(set) var cellsWritten = 0
    /// Whether pictures get 24-bit colours (as a true-colour terminal would), for tests of both kinds.
    public var trueColor = false

    /// A blank grid.
    public init(rows: Int, columns: Int) {
        size = Size(rows: rows, columns: columns)
        cells = Array(repeating: Array(repeating: Cell(character: " ", style: .plain, isContinuation: false), count: columns), count: rows)
    }

    /// Changes the size, keeping what fits (like a terminal being resized).
    public func resize(rows: Int, columns: Int) {
        let blank = Cell(character: " ", style: .plain, isContinuation: false)
        var new = Array(repeating: Array(repeating: blank, count: columns), count: rows)
        for r in 0..<min(rows, size.rows) { for c in 0..<min(columns, size.columns) { new[r][c] = cells[r][c] } }
        cells = new
        size = Size(rows: rows, columns: columns)
    }

    public func put(row: Int, column: Int, text: String, style: CellStyle) {
        guard row >= 0, row < size.rows else { return }
        if DisplayWidth.isPrintableASCII(text) { return putASCII(row: row, column: column, text: text, style: style) }
        var col = column
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if col + w > size.columns { break }
            if col >= 0 {
                // Overwriting half of a wide character blanks its other half, as terminals do.
                if cells[row][col].isContinuation, col > 0 { cells[row][col - 1].character = " " }
                if col + w < size.columns, cells[row][col + w].isContinuation { cells[row][col + w] = Cell(character: " ", style: style, isContinuation: false) }
                cells[row][col] = Cell(character: ch, style: style, isContinuation: false)
                if w == 2 { cells[row][col + 1] = Cell(character: nil, style: style, isContinuation: true) }
                cellsWritten += w
            }
            col += w
        }
    }

    /// `put` for printable ASCII (most of a frame: meters, header, English transcripts): a column a byte, no
    /// grapheme breaking or width lookup, and no wide character to split except at the two ends.
    private func putASCII(row: Int, column: Int, text: String, style: CellStyle) {
        let first = max(0, column)
        let end = min(size.columns, column + text.utf8.count)
        guard first < end else { return }
        if cells[row][first].isContinuation, first > 0 { cells[row][first - 1].character = " " }
        if end < size.columns, cells[row][end].isContinuation {
            cells[row][end] = Cell(character: " ", style: style, isContinuation: false)
        }
        var col = column
        for byte in text.utf8 {
            guard col < end else { break }
            if col >= first {
                cells[row][col] = Cell(character: Character(Unicode.Scalar(byte)), style: style, isContinuation: false)
            }
            col += 1
        }
        cellsWritten += end - first
    }

    public func clear(_ rect: Rect, style: CellStyle) {
        for r in max(0, rect.row)..<min(size.rows, rect.row + rect.rows) {
            put(row: r, column: rect.column, text: String(repeating: " ", count: max(0, min(rect.columns, size.columns - rect.column))), style: style)
        }
    }

    /// Counts frames (nothing to flush).
    public func present() { presentCount += 1 }
    public func invalidate() {}
    /// Restarts `cellsWritten`, e.g. before measuring one frame.
    public func resetWriteCount() { cellsWritten = 0 }

    /// Each row as a person would read it (a wide character once), full width.
    public var lines: [String] { Self.lines(cells) }

    /// The screen as text, trailing spaces of each row removed, rows joined by newlines.
    public func text() -> String { Self.text(cells) }

    /// The rows of `cells` (a copy of `cells` taken earlier: copying is cheap until the grid changes) as a
    /// person would read them, full width.
    public static func lines(_ cells: [[Cell]]) -> [String] {
        cells.map { row in String(row.compactMap { $0.isContinuation ? nil : $0.character }) }
    }

    /// `cells` as text, trailing spaces of each row removed, rows joined by newlines.
    public static func text(_ cells: [[Cell]]) -> String {
        lines(cells).map { $0.trimmingTrailingSpaces() }.joined(separator: "\n")
    }

    /// The style of the cell at a position.
    public func style(row: Int, column: Int) -> CellStyle { cells[row][column].style }
}
