/// Terminal column widths of characters and strings (a small wcwidth that needs no locale).
public enum DisplayWidth {
    /// Columns a Unicode scalar occupies: 0 (combining, control, zero-width), 1 or 2 (East Asian wide, emoji).
    public static func of(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x20 || (v >= 0x7f && v < 0xa0) { return 0 }
        if v < 0x300 { return 1 }
        if isZeroWidth(v) { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// Columns a grapheme cluster occupies: the width of its first visible scalar, 2 for emoji presentation.
    public static func of(_ c: Character) -> Int {
        if c.isASCII { return c.asciiValue.map { $0 >= 0x20 && $0 != 0x7f ? 1 : 0 } ?? 1 }
        var width = 0
        if let first = c.unicodeScalars.first, (0x1f1e6...0x1f1ff).contains(first.value) {
            return c.unicodeScalars.count > 1 ? 2 : 1  // a flag: two regional indicators in one cell pair
        }
        for s in c.unicodeScalars {
            if s.value == 0xfe0f { return 2 }  // emoji presentation selector
            if width == 0 { width = of(s) }
        }
        return width
    }

    /// Columns a string occupies.
    public static func of(_ s: some StringProtocol) -> Int {
        if isPrintableASCII(s) { return s.utf8.count }
        if let w = widthOfUnjoinedScalars(s) { return w }
        var w = 0
        for c in s { w += of(c) }
        return w
    }

    /// Whether a scalar is a grapheme of its own whatever surrounds it, apart from CR LF (both width 0): below
    /// the combining marks (U+0300), or punctuation, symbols, arrows, maths, box drawing, blocks and shapes
    /// (U+2010–2BFF) except the marks that combine with symbols (U+20D0–20FF). No scalar that extends or joins a
    /// grapheme (combining and spacing marks, ZWJ, variation selectors, emoji modifiers, Hangul jamo, regional
    /// indicators) is in these ranges, so a string of them is as wide as the sum of its scalars' widths.
    static func isUnjoined(_ v: UInt32) -> Bool {
        v < 0x300 || (v >= 0x2010 && v <= 0x2bff && !(v >= 0x20d0 && v <= 0x20ff))
    }

    /// The width of a string whose every scalar `isUnjoined`, a scalar at a time (the meters' "● talking", "-∞",
    /// an ellipsis: no grapheme breaking, which costs a few hundred instructions a character); nil if any scalar
    /// might join its neighbours.
    static func widthOfUnjoinedScalars(_ s: some StringProtocol) -> Int? {
        var w = 0
        for u in s.unicodeScalars {
            guard isUnjoined(u.value) else { return nil }
            w += of(u)
        }
        return w
    }

    /// Printable ASCII only, the common case (meters, hints, most text): a column a byte, and no grapheme
    /// breaking needed to walk it (no two printable ASCII characters join into one grapheme).
    static func isPrintableASCII(_ s: some StringProtocol) -> Bool {
        // A native string's bytes in one buffer: a plain loop over them, not String's index walk (the meters'
        // rows are measured up to 30 times a second).
        if let answer = s.utf8.withContiguousStorageIfAvailable({ bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7f } }) {
            return answer
        }
        return s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f }
    }

    static func isZeroWidth(_ v: UInt32) -> Bool {
        switch v {
        case 0x300...0x36f, 0x483...0x489, 0x591...0x5bd, 0x610...0x61a, 0x64b...0x65f, 0x200b...0x200f,
             0x2028...0x202e, 0x2060...0x2064, 0x20d0...0x20ff, 0xfe00...0xfe0f, 0xfe20...0xfe2f, 0xfeff,
             0x1ab0...0x1aff, 0x1dc0...0x1dff, 0x1f3fb...0x1f3ff, 0xe0000...0xe0fff:
            return true
        default:
            return false
        }
    }

    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115f, 0x231a...0x231b, 0x2329...0x232a, 0x23e9...0x23ec, 0x23f0, 0x23f3, 0x25fd...0x25fe,
             0x2614...0x2615, 0x2648...0x2653, 0x267f, 0x2693, 0x26a1, 0x26aa...0x26ab, 0x26bd...0x26be,
             0x26c4...0x26c5, 0x26ce, 0x26d4, 0x26ea, 0x26f2...0x26f3, 0x26f5, 0x26fa, 0x26fd, 0x2705,
             0x270a...0x270b, 0x2728, 0x274c, 0x274e, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27b0, 0x27bf,
             0x2b1b...0x2b1c, 0x2b50, 0x2b55, 0x2e80...0x303e, 0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff,
             0xa000...0xa4cf, 0xa960...0xa97f, 0xac00...0xd7a3, 0xf900...0xfaff, 0xfe10...0xfe19, 0xfe30...0xfe6f,
             0xff00...0xff60, 0xffe0...0xffe6, 0x16fe0...0x16fe4, 0x17000...0x18cff, 0x1b000...0x1b2ff,
             0x1f004, 0x1f0cf, 0x1f18e, 0x1f191...0x1f19a, 0x1f200...0x1f251, 0x1f300...0x1f320, 0x1f32d...0x1f335,
             0x1f337...0x1f37c, 0x1f37e...0x1f393, 0x1f3a0...0x1f3ca, 0x1f3cf...0x1f3d3, 0x1f3e0...0x1f3f0,
             0x1f3f4, 0x1f3f8...0x1f43e, 0x1f440, 0x1f442...0x1f4fc, 0x1f4ff...0x1f53d, 0x1f54b...0x1f54e,
             0x1f550...0x1f567, 0x1f57a, 0x1f595...0x1f596, 0x1f5a4, 0x1f5fb...0x1f64f, 0x1f680...0x1f6c5,
             0x1f6cc, 0x1f6d0...0x1f6d2, 0x1f6d5...0x1f6d7, 0x1f6dc...0x1f6df, 0x1f6eb...0x1f6ec, 0x1f6f4...0x1f6fc,
             0x1f7e0...0x1f7eb, 0x1f7f0, 0x1f90c...0x1f93a, 0x1f93c...0x1f945, 0x1f947...0x1f9ff, 0x1fa70...0x1faff,
             0x20000...0x2fffd, 0x30000...0x3fffd:
            return true
        default:
            return false
        }
    }
}
