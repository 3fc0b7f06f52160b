/// What toml++ (under TOMLKit) must not be given. Its parser assumes two things it does not check: that a table
/// name starts with a bare-key character or a quote (`[é]`, `[=]`, a `[` alone on a line), and that no `}`
/// stands where an array expects a value (`a = [}]`, `a = [1, }]`). Either fails an assertion in a debug build
/// (the process aborts) and is undefined behaviour in a release build (both found by scripts/fuzz.sh). Config
/// and theme files pass this check first; what it refuses is never valid TOML.
public enum TOMLSafety {
    /// A syntax problem toml++ cannot be trusted to report itself.
    public struct Problem: Sendable, Equatable {
        public var line: Int
        public var column: Int
        public var message: String
    }

    /// The first table header whose name does not start with a letter, a digit, `_`, `-` or a quote, or `}` where
    /// an array expects a value (outside strings and comments); nil when there is none.
    public static func problem(in text: String) -> Problem? {
        let b = Array(text.utf8)
        var i = 0, line = 1, lineStart = 0
        var open: [UInt8] = []  // the arrays and inline tables the value being read is in
        var expectValue = false  // just after an array's `[` or `,`
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }  // toml++ skips a byte-order mark
        var atLineStart = true
        func at(_ k: Int) -> UInt8? { k < b.count ? b[k] : nil }
        func isBlank(_ c: UInt8?) -> Bool { c == 0x20 || c == 0x09 }
        // Skips a string starting at i (its quote), counting lines; stops at the end of the text.
        func skipString() {
            let q = b[i]
            let multi = at(i + 1) == q && at(i + 2) == q
            i += multi ? 3 : 1
            while i < b.count {
                let c = b[i]
                if c == 0x5C, q == 0x22 { i += 2; continue }  // an escape in a basic string
                if c == 0x0A {
                    if !multi { return }  // unterminated: toml++ reports it
                    line += 1
                    lineStart = i + 1
                }
                if c == q {
                    if !multi { i += 1; return }
                    if at(i + 1) == q, at(i + 2) == q {
                        i += 3
                        while at(i) == q { i += 1 }  // up to two more quotes belong to the string
                        return
                    }
                }
                i += 1
            }
        }
        while i < b.count {
            if atLineStart {
                atLineStart = false
                while isBlank(at(i)) { i += 1 }
                if open.isEmpty, at(i) == UInt8(ascii: "[") {
                    var k = i + 1
                    if at(k) == UInt8(ascii: "[") { k += 1 }
                    while isBlank(at(k)) { k += 1 }
                    if let c = at(k), !startsKey(c) {
                        return Problem(line: line, column: k - lineStart + 1,
                                       message: "a table name must start with a letter, a digit, _ or - (or be quoted)")
                    }
                    // The header's own brackets do not nest; skip to its closing bracket.
                    i = k
                    while i < b.count, b[i] != UInt8(ascii: "]"), b[i] != 0x0A {
                        if b[i] == 0x22 || b[i] == 0x27 { skipString() } else { i += 1 }
                    }
                    continue
                }
                continue
            }
            let c = b[i]
            switch c {
            case 0x0A:
                line += 1
                i += 1
                lineStart = i
                atLineStart = true
            case 0x20, 0x09, 0x0D:
                i += 1
            case UInt8(ascii: "#"):
                while i < b.count, b[i] != 0x0A { i += 1 }
            case 0x22, 0x27:
                skipString()
                expectValue = false
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(c)
                expectValue = c == UInt8(ascii: "[")
                i += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if c == UInt8(ascii: "}"), expectValue, open.last == UInt8(ascii: "[") {
                    return Problem(line: line, column: i - lineStart + 1, message: "expected a value or ] in the array, saw }")
                }
                _ = open.popLast()
                expectValue = false
                i += 1
            case UInt8(ascii: ","):
                expectValue = open.last == UInt8(ascii: "[")
                i += 1
            default:
                expectValue = false
                i += 1
            }
        }
        return nil
    }

    /// A bare-key character, a quote or `]` (an empty name, which toml++ reports).
    static func startsKey(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
            || c == 0x22 || c == 0x27 || c == UInt8(ascii: "]")
    }
}
