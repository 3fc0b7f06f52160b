/// A size in terminal cells.
public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var rows: Int
    public var columns: Int
    public init(rows: Int, columns: Int) { self.rows = rows; self.columns = columns }
    public var description: String { "\(columns)×\(rows)" }
}
