/// A key with modifiers, as bound in a `KeyMap`; parses and prints like `C-c`, `Space`, `PgUp`, `?`.
public struct KeyChord: Sendable, Hashable, CustomStringConvertible {
    public var key: Key
    public var modifiers: Modifiers
    public init(_ key: Key, _ modifiers: Modifiers = []) { self.key = key; self.modifiers = modifiers }

    static let named: [(String, Key)] = [
        ("Space", .character(" ")), ("Enter", .enter), ("Tab", .tab), ("Esc", .escape), ("Backspace", .backspace),
        ("Up", .up), ("Down", .down), ("Left", .left), ("Right", .right), ("Home", .home), ("End", .end),
        ("PgUp", .pageUp), ("PgDn", .pageDown), ("Insert", .insert), ("Delete", .delete),
    ]

    /// Parses `"q"`, `"?"`, `"Space"`, `"PgUp"`, `"F5"`, `"C-c"`/`"Ctrl-C"`, `"M-x"`/`"Alt-x"`.
    public init?(parsing text: String) {
        var t = Substring(text)
        var mods: Modifiers = []
        while true {
            let lower = t.lowercased()
            if lower.hasPrefix("c-") && t.count > 2 { mods.insert(.control); t = t.dropFirst(2) } else if lower.hasPrefix("ctrl-") && t.count > 5 { mods.insert(.control); t = t.dropFirst(5) } else if lower.hasPrefix("m-") && t.count > 2 { mods.insert(.alt); t = t.dropFirst(2) } else if lower.hasPrefix("alt-") && t.count > 4 { mods.insert(.alt); t = t.dropFirst(4) } else { break }
        }
        if let (_, k) = Self.named.first(where: { $0.0.lowercased() == t.lowercased() }) {
            self.init(k, mods)
        } else if t.count > 1, t.first == "F" || t.first == "f", let n = Int(t.dropFirst()), (1...24).contains(n) {
            self.init(.function(n), mods)
        } else if t.count == 1, let c = t.first {
            self.init(.character(mods.contains(.control) ? Character(c.lowercased()) : c), mods)
        } else {
            return nil
        }
    }

    public var description: String {
        var s = ""
        if modifiers.contains(.control) { s += "Ctrl-" }
        if modifiers.contains(.alt) { s += "Alt-" }
        if let n = Self.named.first(where: { $0.1 == key }) { return s + n.0 }
        switch key {
        case .character(let c): return s + (modifiers.contains(.control) ? c.uppercased() : String(c))
        case .function(let n): return s + "F\(n)"
        default: return s + "\(key)"
        }
    }

    func matches(_ e: KeyEvent) -> Bool {
        guard e.key == key else { return false }
        // Shift is part of the character already ("?" is Shift-/), so only Ctrl and Alt must agree.
        let relevant: Modifiers = [.control, .alt]
        return e.modifiers.intersection(relevant) == modifiers.intersection(relevant)
    }
}
