/// What a key does on the main screen.
public enum Command: String, Sendable, CaseIterable {
    case pushToTalk, voiceMenu, toggleMicMode, textInput, toolLogFocus, help, quit, interruptOrQuit
    case scrollPageUp, scrollPageDown, scrollTop, scrollBottom, scrollLineUp, scrollLineDown, export

    /// One line for the help overlay.
    public var summary: String {
        switch self {
        case .pushToTalk: return "talk: hold Space (or tap to start, tap again to stop)"
        case .voiceMenu: return "choose a voice"
        case .toggleMicMode: return "switch push-to-talk / open mic"
        case .textInput: return "type a message (Enter sends, Esc leaves)"
        case .toolLogFocus: return "focus the tool-call log (↑↓ select, Enter expand)"
        case .help: return "this help"
        case .quit: return "quit"
        case .interruptOrQuit: return "interrupt the reply; quit when idle"
        case .scrollPageUp: return "scroll the transcript up a page"
        case .scrollPageDown: return "scroll the transcript down a page"
        case .scrollTop: return "go to the start of the conversation"
        case .scrollBottom: return "go to the newest line (follow)"
        case .scrollLineUp: return "scroll up one line"
        case .scrollLineDown: return "scroll down one line"
        case .export: return "export the transcript as Markdown"
        }
    }
}

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

/// Key bindings for the main screen: data, so configuration can override them.
public struct KeyMap: Sendable, Equatable {
    public struct Binding: Sendable, Equatable {
        public var chord: KeyChord
        public var command: Command
        public init(_ chord: KeyChord, _ command: Command) { self.chord = chord; self.command = command }
    }

    public var bindings: [Binding]
    public init(bindings: [Binding]) { self.bindings = bindings }

    /// The documented defaults.
    public static let `default` = KeyMap(bindings: [
        .init(KeyChord(.character(" ")), .pushToTalk),
        .init(KeyChord(.character("v")), .voiceMenu),
        .init(KeyChord(.character("m")), .toggleMicMode),
        .init(KeyChord(.tab), .textInput),
        .init(KeyChord(.character("i")), .textInput),
        .init(KeyChord(.character("t")), .toolLogFocus),
        .init(KeyChord(.character("?")), .help),
        .init(KeyChord(.character("q")), .quit),
        .init(KeyChord(.character("c"), .control), .interruptOrQuit),
        .init(KeyChord(.pageUp), .scrollPageUp),
        .init(KeyChord(.pageDown), .scrollPageDown),
        .init(KeyChord(.home), .scrollTop),
        .init(KeyChord(.end), .scrollBottom),
        .init(KeyChord(.up), .scrollLineUp),
        .init(KeyChord(.down), .scrollLineDown),
        .init(KeyChord(.character("e")), .export),
    ])

    /// The command bound to a key event, if any (releases and repeats of keys other than Space map to nothing;
    /// Space's are for the push-to-talk machine).
    public func command(for e: KeyEvent) -> Command? {
        if e.kind == .release { return nil }
        return bindings.first { $0.chord.matches(e) }?.command
    }

    /// The keys bound to a command, for help and hints.
    public func keys(for c: Command) -> [KeyChord] { bindings.filter { $0.command == c }.map(\.chord) }

    /// Replaces the keys of the given commands, e.g. `["voiceMenu": ["V"], "quit": ["q", "C-q"]]`.
    public func overriding(_ overrides: [String: [String]]) -> Result<KeyMap, KeyMapError> {
        var map = self
        for (name, keys) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let cmd = Command(rawValue: name) else { return .failure(.unknownCommand(name)) }
            var chords: [KeyChord] = []
            for k in keys {
                guard let ch = KeyChord(parsing: k) else { return .failure(.badKey(command: name, key: k)) }
                chords.append(ch)
            }
            map.bindings.removeAll { $0.command == cmd || chords.contains($0.chord) }
            map.bindings += chords.map { Binding($0, cmd) }
        }
        return .success(map)
    }
}

/// Why a key override was rejected.
public enum KeyMapError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case badKey(command: String, key: String)

    public var message: String {
        switch self {
        case .unknownCommand(let c): return "unknown command \"\(c)\""
        case .badKey(let c, let k): return "command \"\(c)\": cannot read key \"\(k)\""
        }
    }

    public var hint: String {
        switch self {
        case .unknownCommand: return "commands: " + Command.allCases.map(\.rawValue).joined(separator: ", ")
        case .badKey: return "write keys like q, ?, Space, PgUp, F5, C-c, M-x"
        }
    }

    public var description: String { "\(message) (\(hint))" }
}
