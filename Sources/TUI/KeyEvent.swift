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

/// Modifier keys held with a key.
public struct Modifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = Modifiers(rawValue: 1)
    public static let alt = Modifiers(rawValue: 2)
    public static let control = Modifiers(rawValue: 4)
    public static let superKey = Modifiers(rawValue: 8)

    /// From the xterm/kitty `1 + bits` encoding, ignoring Caps Lock and Num Lock.
    init(encoded: Int) {
        let bits = max(0, encoded - 1)
        var m: Modifiers = []
        if bits & 1 != 0 { m.insert(.shift) }
        if bits & 2 != 0 { m.insert(.alt) }
        if bits & 4 != 0 { m.insert(.control) }
        if bits & (8 | 16 | 32) != 0 { m.insert(.superKey) }
        self = m
    }
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

/// What the terminal sent, decoded.
public enum InputEvent: Sendable, Hashable {
    case key(KeyEvent)
    /// A bracketed paste, as one event.
    case paste(String)
    /// Reply to `CSI ? u`: the terminal speaks the kitty keyboard protocol; its current flags.
    case kittyFlags(Int)
    /// Reply to `CSI c` (primary device attributes).
    case deviceAttributes
    /// A focus change (`CSI I` / `CSI O`), if the terminal reports them.
    case focus(Bool)
}
