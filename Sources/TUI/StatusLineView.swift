/// The bottom row: a transient status message, then the most useful key hints from the key map.
public enum StatusLineView {
    public static func render(status: String?, hints: [(String, String)], width: Int) -> StyledLine {
        var line = StyledLine(fill: .statusBar)
        if let s = status, !s.isEmpty {
            line.append(" " + s.clipped(to: max(1, width / 2)) + " ", .statusBar)
            line.append("│", .statusBar)
        }
        for (key, label) in hints {
            let piece = DisplayWidth.of(key) + DisplayWidth.of(label) + 3
            if line.width + piece > width { break }
            line.append(" " + key, .statusKey)
            line.append(" " + label + " ", .statusBar)
        }
        return line.padded(to: width)
    }

    /// Hints for the current context.
    static func hints(_ s: UIState, keyMap km: KeyMap) -> [(String, String)] {
        func k(_ c: Command) -> String { km.keys(for: c).first?.description ?? "?" }
        if s.input != nil { return [("Enter", "send"), ("Esc", "leave"), ("Ctrl-U", "clear"), ("←→", "move")] }
        switch s.overlay {
        case .voiceMenu?: return [("↑↓", "move"), ("type", "filter"), ("Enter", "choose"), ("Esc", "close")]
        case .confirm?: return [("y", "yes"), ("N", "no")]
        case .help?, .message?: return [("any key", "closes")]
        case nil: break
        }
        if s.toolLog.focused { return [("↑↓", "select"), ("Enter", "expand"), ("c", "collapse"), ("Esc", "back")] }
        let talk: String
        switch s.header.pushToTalk {
        case .kittyHold: talk = "hold: talk"
        case .tapToggle: talk = "tap/hold: talk"
        case .openMic: talk = "(open mic)"
        }
        return [(k(.pushToTalk), talk), (k(.voiceMenu), "voice"), (k(.toggleMicMode), "mode"), (k(.textInput), "type"),
                (k(.toolLogFocus), "tools"), (k(.scrollPageUp), "scroll"), (k(.help), "help"), (k(.quit), "quit")]
    }
}

/// Shown instead of the layout when the terminal is smaller than `FrameLayout.minimumSize`.
public enum TooSmallView {
    public static func render(size: Size) -> [StyledLine] {
        let msg = ["terminal too small:", "need at least \(FrameLayout.minimumSize.columns)×\(FrameLayout.minimumSize.rows)", "now \(size.columns)×\(size.rows)"]
        var lines = Array(repeating: StyledLine(), count: size.rows)
        let top = max(0, (size.rows - msg.count) / 2)
        for (i, m) in msg.enumerated() where top + i < size.rows {
            let pad = max(0, (size.columns - DisplayWidth.of(m)) / 2)
            lines[top + i] = StyledLine(String(repeating: " ", count: pad) + m, i == 0 ? .errorText : .normal).truncated(to: size.columns)
        }
        return lines
    }
}
