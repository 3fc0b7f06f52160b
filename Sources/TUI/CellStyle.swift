/// The resolved look of a cell: colours and attributes.
public struct CellStyle: Sendable, Hashable {
    public var fg: Color
    public var bg: Color
    public var attributes: TextAttributes
    public init(fg: Color = .default, bg: Color = .default, attributes: TextAttributes = []) {
        self.fg = fg; self.bg = bg; self.attributes = attributes
    }
    public static let plain = CellStyle()
}
