/// The bottom row: a transient status message, then the most useful key hints from the key map.
public enum StatusLineView {
    /// The status row: `status` (if any), then as many (key, label) hints as fit.
    public static func render(status: String?, hints: [(String, String)], width: Int) -> StyledLine {
        var line = StyledLine(fill: .statusBar)
        if let s = status, !s.isEmpty {
            line.append(" " + TerminalText.sanitized(s, .singleLine).clipped(to: max(1, width / 2)) + " ", .statusBar)
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
        case .help?: return [("↑↓", "scroll"), ("any other key", "closes")]
        case .message?: return [("any key", "closes")]
        case .latencyStats?: return [(k(.latencyStats) + "/Esc", "closes")]
        case .usage?: return [(k(.usageStats) + "/Esc", "closes")]
        case .pathPrompt?: return [("Tab", "complete"), ("Enter", "attach"), ("Esc", "cancel")]
        case nil: break
        }
        if let search = s.search {
            if search.editor != nil { return [("Enter", "keep"), ("Esc", "leave"), ("type", "search as you type")] }
            return [(k(.searchOlder), "older"), (k(.searchNewer), "newer"), (k(.search), "search again"), ("Esc", "done")]
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
