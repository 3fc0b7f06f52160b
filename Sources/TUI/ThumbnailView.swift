/// A small picture of the last image or frame sent, as RGB pixels (two pixel rows per terminal row).
public struct Thumbnail: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width * height * 3` bytes, row by row.
    public var rgb: [UInt8]
    /// e.g. `red.png 64×48`.
    public var caption: String

    public init(width: Int, height: Int, rgb: [UInt8], caption: String) {
        self.width = width
        self.height = height
        self.rgb = rgb
        self.caption = caption
    }

    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 3
        guard x < width, y < height, i + 2 < rgb.count else { return (0, 0, 0) }
        return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }
}

/// Draws a ``Thumbnail`` with upper-half blocks: the foreground is the upper pixel, the background the lower,
/// in 24-bit colour on a true-colour screen and from the 256-colour palette elsewhere. Nothing is drawn in a
/// box too small for 8×4 cells, so small terminals keep their room for the transcript.
public enum ThumbnailView {
    public static let minimumColumns = 8
    public static let minimumRows = 4

    /// Draws `thumbnail` scaled into `rect` (caption on the last row); returns false when the box is too small.
    /// `trueColor` defaults to what the screen takes.
    @discardableResult
    public static func draw(_ thumbnail: Thumbnail, in rect: Rect, on screen: any Screen, trueColor: Bool? = nil) -> Bool {
        let rgb = trueColor ?? screen.trueColor
        func color(_ p: (Int, Int, Int)) -> Color {
            rgb ? .rgb(UInt8(p.0), UInt8(p.1), UInt8(p.2)) : .index(Palette.nearest256(r: p.0, g: p.1, b: p.2))
        }
        guard rect.columns >= minimumColumns, rect.rows >= minimumRows, thumbnail.width > 0, thumbnail.height > 0 else { return false }
        let pictureRows = rect.rows - 1
        // Keep the aspect ratio: a cell is about twice as tall as wide, and holds two pixel rows.
        let scale = min(Double(rect.columns) / Double(thumbnail.width), Double(pictureRows * 2) / Double(thumbnail.height))
        let columns = max(1, Int(Double(thumbnail.width) * scale))
        let pixelRows = max(2, Int(Double(thumbnail.height) * scale))
        for row in 0..<min(pictureRows, (pixelRows + 1) / 2) {
            for col in 0..<columns {
                let x = min(thumbnail.width - 1, col * thumbnail.width / columns)
                let top = thumbnail.pixel(x, min(thumbnail.height - 1, (2 * row) * thumbnail.height / pixelRows))
                let bottom = thumbnail.pixel(x, min(thumbnail.height - 1, (2 * row + 1) * thumbnail.height / pixelRows))
                let style = CellStyle(fg: color(top), bg: color(bottom))
                screen.put(row: rect.row + row, column: rect.column + col, text: "▀", style: style)
            }
        }
        screen.put(row: rect.row + rect.rows - 1, column: rect.column, text: String(thumbnail.caption.prefix(rect.columns)), style: .plain)
        return true
    }
}
