/// Where frames are drawn. Views never touch a `Screen`; the `FrameRenderer` writes their lines here.
/// Two backends: `NcursesScreen` (the terminal) and `GridScreen` (an in-memory cell grid for tests).
public protocol Screen: AnyObject {
    /// The current size in cells.
    var size: Size { get }
    /// Writes `text` starting at a cell, clipped at the right edge; a wide character takes two cells.
    func put(row: Int, column: Int, text: String, style: CellStyle)
    /// Fills a rectangle with blanks of `style`.
    func clear(_ rect: Rect, style: CellStyle)
    /// Makes what was written visible (for the terminal: one refresh).
    func present()
    /// Forgets what is on the physical screen so the next `present` repaints everything (after a resize).
    func invalidate()
    /// Whether `.rgb` colours reach the terminal as 24-bit colour (otherwise they are shown from the palette).
    var trueColor: Bool { get }
}

extension Screen {
    public var trueColor: Bool { false }
}

extension Screen {
    /// Writes a styled line at a position, filling to `width` columns with the line's fill role.
    func draw(_ line: StyledLine, row: Int, column: Int, width: Int, theme: Theme) {
        var col = column
        let limit = column + width
        for run in line.runs where col < limit {
            let full = DisplayWidth.of(run.text)
            let fits = full <= limit - col
            let text = fits ? run.text : run.text.fittedPrefix(columns: limit - col)
            if !text.isEmpty { put(row: row, column: col, text: text, style: theme.style(run.role)) }
            if !fits {
                col += DisplayWidth.of(text)
                break
            }
            col += full
        }
        if col < limit { put(row: row, column: col, text: String(repeating: " ", count: limit - col), style: theme.style(line.fill)) }
    }
}
