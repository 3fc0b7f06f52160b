/// A rectangle of cells.
public struct Rect: Sendable, Hashable {
    public var row: Int, column: Int, rows: Int, columns: Int
    public init(row: Int, column: Int, rows: Int, columns: Int) {
        self.row = row; self.column = column; self.rows = max(0, rows); self.columns = max(0, columns)
    }
    public var size: Size { Size(rows: rows, columns: columns) }
    public var isEmpty: Bool { rows == 0 || columns == 0 }
    public func intersects(_ o: Rect) -> Bool {
        !isEmpty && !o.isEmpty && row < o.row + o.rows && o.row < row + rows && column < o.column + o.columns && o.column < column + columns
    }
}
