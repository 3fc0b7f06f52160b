/// A key, independent of modifiers.
public enum Key: Sendable, Hashable {
    /// A printable character (Space is `" "`). Ctrl-A is `.character("a")` with `.control`.
    case character(Character)
    case enter, tab, backspace, escape
    case up, down, left, right, home, end, pageUp, pageDown, insert, delete
    case function(Int)
    /// A kitty functional key parley has no name for (e.g. a bare modifier key), by its code.
    case other(Int)
}

/// Whether a key went down, repeats, or came up. Without the kitty protocol every key is a `.press`.
public enum KeyEventKind: Sendable, Hashable { case press, `repeat`, release }

/// One key event.
public struct KeyEvent: Sendable, Hashable, CustomStringConvertible {
    public var key: Key
    public var modifiers: Modifiers
    public var kind: KeyEventKind

    public init(_ key: Key, _ modifiers: Modifiers = [], kind: KeyEventKind = .press) {
        self.key = key; self.modifiers = modifiers; self.kind = kind
    }

    /// Shorthand for a plain character key press.
    public static func char(_ c: Character) -> KeyEvent { KeyEvent(.character(c)) }
    /// Shorthand for Ctrl+letter.
    public static func ctrl(_ c: Character) -> KeyEvent { KeyEvent(.character(c), .control) }

    /// True for Space (any event kind, no modifiers other than Shift).
    public var isSpace: Bool { key == .character(" ") && modifiers.subtracting(.shift).isEmpty }

    public var description: String {
        var s = ""
        if modifiers.contains(.control) { s += "C-" }
        if modifiers.contains(.alt) { s += "M-" }
        if modifiers.contains(.shift) { s += "S-" }
        switch key {
        case .character(" "): s += "Space"
        case .character(let c): s += String(c)
        case .function(let n): s += "F\(n)"
        case .other(let n): s += "key\(n)"
        default: s += "\(key)"
        }
        switch kind {
        case .press: break
        case .repeat: s += "(repeat)"
        case .release: s += "(release)"
        }
        return s
    }
}
