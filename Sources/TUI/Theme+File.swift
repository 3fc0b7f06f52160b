import Foundation

extension Theme {
    /// `themes/default.toml` as it must read, made from `Theme.default` (the one definition of the default
    /// theme; a test checks the file against it): every role in `Role` order, a plain role as
    /// `fg = "default"`, default colours otherwise left out.
    static let defaultFileText = Theme.default.fileText(describing: "for dark terminals")

    func fileText(describing what: String) -> String {
        var lines = [
            "# parley theme \"\(name)\": \(what).",
            "# Each role takes fg / bg (a name, 0-255, \"#rrggbb\" or \"default\") and attrs",
            "# (bold, dim, underline, reverse, italic). Roles left out look like `default`.",
            "name = \"\(name)\"",
            "",
            "[roles]",
        ]
        for role in Role.allCases {
            let style = styles[role] ?? CellStyle()
            var fields: [String] = []
            if style.fg != .default || style == CellStyle() { fields.append("fg = \(Self.fileValue(style.fg))") }
            if style.bg != .default { fields.append("bg = \(Self.fileValue(style.bg))") }
            let attrs = ["bold", "dim", "underline", "reverse", "italic"].filter { style.attributes.contains(TextAttributes.names[$0] ?? []) }
            if !attrs.isEmpty { fields.append("attrs = [\(attrs.map { "\"\($0)\"" }.joined(separator: ", "))]") }
            let padded = role.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)
            lines.append("\(padded)= { \(fields.joined(separator: ", ")) }")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fileValue(_ color: Color) -> String {
        switch color {
        case .default: "\"default\""
        case .index(let n): "\(n)"
        case .rgb(let r, let g, let b): "\"#\([r, g, b].map { String(format: "%02x", $0) }.joined())\""
        }
    }
}
