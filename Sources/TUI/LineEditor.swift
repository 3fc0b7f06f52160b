/// A one-line text editor: grapheme-aware insert and delete, cursor movement, Emacs-style kills, paste.
public struct LineEditor: Sendable, Equatable {
    /// The text being edited.
    public private(set) var text: String
    /// Cursor position in grapheme clusters (0 … text.count).
    public private(set) var cursor: Int

    /// Earlier messages, oldest first, for Up/Down (the App keeps them between uses of the input line).
    public private(set) var history: [String]
    /// Which history entry is shown (nil: the draft being typed).
    private var historyIndex: Int?
    private var draft = ""

    /// An editor holding `text`, with the cursor at its end.
    public init(text: String = "", history: [String] = []) {
        self.text = text; self.cursor = text.count; self.history = history
    }

    /// What a key did.
    public enum Action: Sendable, Equatable {
        case none
        case edited
        /// Enter: send this text (the editor is cleared).
        case submit(String)
        /// Esc: leave the input line.
        case leave
    }

    /// Applies a key: printable characters insert; Left/Right/Home/End/Ctrl-A/Ctrl-E move, Ctrl- or Alt-Left/Right
    /// and Alt-B/F by words; Backspace, Delete, Ctrl-D, Ctrl-K (kill to end), Ctrl-U (kill to start), Ctrl-W and
    /// Alt-Backspace (kill word back), Alt-D (kill word forward) delete; Up/Down (Ctrl-P/N) recall `history`;
    /// Enter submits (and adds the text to `history`); Esc leaves.
    public mutating func handle(_ k: KeyEvent) -> Action {
        guard k.kind != .release else { return .none }
        let ctrl = k.modifiers.contains(.control)
        let alt = k.modifiers.contains(.alt)
        switch (k.key, ctrl) {
        case (.enter, _):
            let t = text
            if !t.isEmpty && history.last != t { history.append(t) }
            text = ""; cursor = 0; historyIndex = nil; draft = ""
            return .submit(t)
        case (.up, _), (.character("p"), true):
            guard !history.isEmpty else { return .none }
            if historyIndex == nil { draft = text }
            let i = max(0, (historyIndex ?? history.count) - 1)
            historyIndex = i
            text = history[i]; cursor = text.count
        case (.down, _), (.character("n"), true):
            guard let i = historyIndex else { return .none }
            if i + 1 < history.count { historyIndex = i + 1; text = history[i + 1] } else { historyIndex = nil; text = draft }
            cursor = text.count
        case (.escape, _): return .leave
        case (.left, _) where ctrl || alt, (.character("b"), _) where alt: cursor = wordStart(before: cursor)
        case (.right, _) where ctrl || alt, (.character("f"), _) where alt: cursor = wordEnd(after: cursor)
        case (.backspace, _) where alt:
            let i = wordStart(before: cursor)
            remove(from: i, to: cursor); cursor = i
        case (.character("d"), false) where alt: remove(from: cursor, to: wordEnd(after: cursor))
        case (.left, _), (.character("b"), true): cursor = max(0, cursor - 1)
        case (.right, _), (.character("f"), true): cursor = min(text.count, cursor + 1)
        case (.home, _), (.character("a"), true): cursor = 0
        case (.end, _), (.character("e"), true): cursor = text.count
        case (.backspace, _), (.character("h"), true):
            guard cursor > 0 else { return .none }
            remove(from: cursor - 1, to: cursor); cursor -= 1
        case (.delete, _), (.character("d"), true):
            guard cursor < text.count else { return .none }
            remove(from: cursor, to: cursor + 1)
        case (.character("k"), true): remove(from: cursor, to: text.count)
        case (.character("u"), true): remove(from: 0, to: cursor); cursor = 0
        case (.character("w"), true):
            let i = wordStart(before: cursor)
            remove(from: i, to: cursor); cursor = i
        case (.character(let c), false):
            guard !k.modifiers.contains(.alt) else { return .none }
            insert(String(c))
        default: return .none
        }
        return .edited
    }

    /// Inserts text at the cursor (a paste: newlines become spaces, control characters are dropped).
    public mutating func insert(_ s: String) {
        let clean = String(s.map { $0 == "\n" || $0 == "\t" ? " " : $0 }.filter { c in !c.unicodeScalars.allSatisfy { $0.value < 0x20 || $0.value == 0x7f } })
        let idx = text.index(text.startIndex, offsetBy: cursor)
        let before = text.count
        text.insert(contentsOf: clean, at: idx)
        // Combining marks can merge with the character before, so count what was really added.
        cursor = min(text.count, cursor + (text.count - before))
    }

    /// The word that ends at the cursor (back to the previous space), e.g. the `@path` being completed.
    public var wordBeforeCursor: String {
        let chars = Array(text)
        var i = cursor
        while i > 0 && chars[i - 1] != " " { i -= 1 }
        return String(chars[i..<cursor])
    }

    /// Replaces ``wordBeforeCursor`` with `word` (Tab completion); the cursor ends after it.
    public mutating func replaceWordBeforeCursor(with word: String) {
        let start = cursor - wordBeforeCursor.count
        remove(from: start, to: cursor)
        cursor = start
        insert(word)
    }

    private func wordStart(before c: Int) -> Int {
        let chars = Array(text)
        var i = c
        while i > 0 && chars[i - 1] == " " { i -= 1 }
        while i > 0 && chars[i - 1] != " " { i -= 1 }
        return i
    }

    private func wordEnd(after c: Int) -> Int {
        let chars = Array(text)
        var i = c
        while i < chars.count && chars[i] == " " { i += 1 }
        while i < chars.count && chars[i] != " " { i += 1 }
        return i
    }

    private mutating func remove(from a: Int, to b: Int) {
        guard a < b else { return }
        let s = text.index(text.startIndex, offsetBy: a), e = text.index(text.startIndex, offsetBy: b)
        text.removeSubrange(s..<e)
    }
}
