/// The voice menu's state: the list, the current voice, a type-to-filter string and the selection. The persona
/// menu is the same list of names with a line each.
public struct VoiceMenu: Sendable, Equatable {
    public var voices: [VoiceOption]
    /// The voice in use, marked in the list.
    public var current: String
    public private(set) var filter: String = ""
    /// Index into `filtered`.
    public private(set) var selection: Int = 0

    public init(voices: [VoiceOption], current: String) {
        self.voices = voices; self.current = current
        selection = voices.firstIndex { $0.name == current } ?? 0
    }

    /// Voices whose name or style contains the filter (case-insensitive); names starting with it come first.
    public var filtered: [VoiceOption] {
        guard !filter.isEmpty else { return voices }
        let f = filter.lowercased()
        let starts = voices.filter { $0.name.lowercased().hasPrefix(f) }
        let rest = voices.filter { !$0.name.lowercased().hasPrefix(f) && ($0.name.lowercased().contains(f) || $0.style.lowercased().contains(f)) }
        return starts + rest
    }

    /// The highlighted voice, if the filter leaves any.
    public var selected: VoiceOption? {
        let f = filtered
        return f.indices.contains(selection) ? f[selection] : nil
    }

    /// What a key did.
    public enum Action: Sendable, Equatable { case none, changed, choose(String), close }

    /// Up/Down/PgUp/PgDn/Home/End move; letters filter; Backspace edits the filter; Enter chooses; Esc closes.
    public mutating func handle(_ k: KeyEvent) -> Action {
        guard k.kind != .release else { return .none }
        let count = filtered.count
        switch k.key {
        case .escape: return .close
        case .enter: return selected.map { .choose($0.name) } ?? .none
        case .up: selection = max(0, selection - 1)
        case .down: selection = min(max(0, count - 1), selection + 1)
        case .pageUp: selection = max(0, selection - 10)
        case .pageDown: selection = min(max(0, count - 1), selection + 10)
        case .home: selection = 0
        case .end: selection = max(0, count - 1)
        case .backspace:
            guard !filter.isEmpty else { return .none }
            filter.removeLast(); reselect()
        case .character(let c) where !k.modifiers.contains(.control) && !k.modifiers.contains(.alt) && (c.isLetter || c.isNumber || "-_ ".contains(c)):
            filter.append(c); reselect()
        case .character("u") where k.modifiers.contains(.control):
            filter = ""; reselect()
        default: return .none
        }
        return .changed
    }

    private mutating func reselect() {
        let f = filtered
        selection = f.firstIndex { $0.name == current } ?? 0
        if !filter.isEmpty { selection = 0 }
    }
}
