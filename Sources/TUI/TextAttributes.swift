/// Text attributes a theme can give a role.
public struct TextAttributes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = TextAttributes(rawValue: 1)
    public static let dim = TextAttributes(rawValue: 2)
    public static let underline = TextAttributes(rawValue: 4)
    public static let reverse = TextAttributes(rawValue: 8)
    public static let italic = TextAttributes(rawValue: 16)

    /// Names accepted in theme files.
    public static let names: [String: TextAttributes] = [
        "bold": .bold, "dim": .dim, "underline": .underline, "reverse": .reverse, "italic": .italic,
    ]
}
