/// The one sanitiser for text that came from outside (the server, a tool, an MCP server, a file, a config) on
/// its way to a terminal, stdout, stderr or a Markdown export: every character that could move the cursor,
/// change modes, hide text or reorder it is replaced by a visible stand-in, so what is shown is what is there.
///
/// - C0 controls, DEL: their Unicode control pictures (ESC `␛`, NUL `␀`, CR `␍`, LF `␊`, DEL `␡`).
/// - C1 controls (U+0080…U+009F, e.g. the 8-bit CSI U+009B), bidirectional overrides and isolates (U+202A…U+202E,
///   U+2066…U+2069), invisible marks and separators (U+200B…U+200F, U+2028, U+2029, U+2060…U+2064, U+FEFF, U+061C)
///   and unassigned or private code points: `⟨U+XXXX⟩`.
///
/// Line breaks and tabs are kept in `.multiline` mode (a transcript, an export); `.singleLine` shows them too,
/// for text that must stay on one row or whose lines must not be mistaken for something else.
public enum TerminalText {
    public enum Mode: Sendable { case singleLine, multiline }

    /// `text` with every control character visible. Unchanged (and not copied) when there is nothing to show.
    public static func sanitized(_ text: String, _ mode: Mode = .multiline) -> String {
        guard text.unicodeScalars.contains(where: { needsPicture($0, mode) }) else { return text }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let s = scalars.next() {
            guard needsPicture(s, mode) else { out.append(s); continue }
            for p in picture(of: s).unicodeScalars { out.append(p) }
        }
        return String(out)
    }

    /// Whether `text` holds anything `sanitized` would replace.
    public static func isClean(_ text: String, _ mode: Mode = .multiline) -> Bool {
        !text.unicodeScalars.contains(where: { needsPicture($0, mode) })
    }

    /// The visible stand-in for one scalar.
    public static func picture(of s: Unicode.Scalar) -> String {
        switch s.value {
        case 0x00...0x1F: return String(Character(Unicode.Scalar(0x2400 + s.value) ?? "?"))
        case 0x7F: return "␡"
        default: return "⟨U+" + hex(s.value) + "⟩"
        }
    }

    static func needsPicture(_ s: Unicode.Scalar, _ mode: Mode) -> Bool {
        let v = s.value
        if v < 0x20 { return mode == .singleLine || (v != 0x0A && v != 0x09) }
        if v < 0x7F { return false }
        if v == 0x7F || (0x80...0x9F).contains(v) { return true }
        switch v {
        case 0x200D: return false  // ZWJ: emoji sequences need it
        case 0x061C, 0x180E, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F, 0xFEFF, 0xFFF9...0xFFFB:
            return true
        default:
            break
        }
        switch s.properties.generalCategory {
        case .unassigned, .privateUse, .surrogate, .format: return true
        default: return false
        }
    }

    private static func hex(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
}
