/// A terminal colour: the terminal's default, an index into the xterm 256-colour palette, or (for pictures) a
/// 24-bit colour that a terminal without true colour shows as the nearest palette entry.
public enum Color: Sendable, Hashable {
    case `default`
    case index(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    var isRGB: Bool { if case .rgb = self { true } else { false } }

    /// The palette entry for a screen without true colour (`.rgb` becomes the nearest 256-colour entry).
    public var paletteColor: Color {
        guard case .rgb(let r, let g, let b) = self else { return self }
        return .index(Palette.nearest256(r: Int(r), g: Int(g), b: Int(b)))
    }

    /// The 16 standard names accepted in theme files.
    public static let names: [String: UInt8] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "gray": 8, "grey": 8, "brightblack": 8, "brightred": 9, "brightgreen": 10, "brightyellow": 11,
        "brightblue": 12, "brightmagenta": 13, "brightcyan": 14, "brightwhite": 15,
    ]

    /// Parses `"default"`, a name, `0`–`255` (as text) or `#rrggbb` (mapped to the nearest 256-colour entry).
    public static func parse(_ text: String) -> Color? {
        let t = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        if t == "default" || t == "none" { return .default }
        if let n = names[t] { return .index(n) }
        if let n = UInt8(t) { return .index(n) }
        if t.hasPrefix("#"), t.count == 7, let v = UInt32(t.dropFirst(), radix: 16) {
            return .index(Palette.nearest256(r: Int(v >> 16 & 0xff), g: Int(v >> 8 & 0xff), b: Int(v & 0xff)))
        }
        return nil
    }
}
