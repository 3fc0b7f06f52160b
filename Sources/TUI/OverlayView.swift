/// Popups drawn in a bordered box centred over the main screen.
public enum OverlayView {
    /// The box's rectangle and its lines (border included) for a screen size.
    public static func render(_ o: Overlay, screen: Size, keyMap: KeyMap) -> (rect: Rect, lines: [StyledLine]) {
        switch o {
        case .voiceMenu(let m): return voiceMenu(m, screen: screen)
        case .personaMenu(let m): return voiceMenu(m, screen: screen, title: "Persona", empty: "no persona matches")
        case .help(let top): return helpBox(keyMap, top: top, screen: screen)
        case .latencyStats(let stats):
            let key = keyMap.keys(for: .latencyStats).first.map { "\($0) or " } ?? ""
            return box(title: "Latency per turn", body: LatencyStatsView.body(stats, screen: screen), screen: screen, footer: key + "Esc closes")
        case .usage(let table):
            let key = keyMap.keys(for: .usageStats).first.map { "\($0) or " } ?? ""
            return box(title: "Usage and cost", body: UsageView.body(table, screen: screen), screen: screen, footer: key + "Esc closes")
        case .confirm(let c): return confirm(c, screen: screen)
        case .message(let title, let text):
            return box(title: title, body: wrapBody(TerminalText.sanitized(text), role: .menu, screen: screen), screen: screen, footer: "any key closes")
        case .pathPrompt(let editor):
            let width = max(20, min(64, screen.columns - 10))
            let body = [StyledLine("PNG, JPEG, WebP or GIF; it goes with your next turn", .menuDim),
                        InputLineView.render(editor, width: width, prompt: "@")]
            return box(title: "Attach an image", body: body, screen: screen, footer: "Tab completes · Enter attaches · Esc cancels", minWidth: width)
        }
    }

    /// The question, the detail (whole, or a scrolling window with markers saying how much is above and
    /// below), and the answers; `y` is shown as unavailable until the end has been seen.
    static func confirm(_ c: ConfirmModel, screen: Size) -> (Rect, [StyledLine]) {
        let layout = c.layout(screen: screen)
        var body = [StyledLine(c.question, .menu)]
        if c.detail != nil {
            body.append(StyledLine())
            if layout.fits {
                body += layout.rows
            } else {
                let top = min(c.scroll, max(0, layout.rows.count - layout.viewport))
                let below = layout.rows.count - top - layout.viewport
                body.append(top > 0 ? StyledLine("↑ \(top) more line\(top == 1 ? "" : "s") above", .menuDim) : StyledLine("(top)", .menuDim))
                body += layout.rows[top..<(top + layout.viewport)]
                body.append(below > 0
                    ? StyledLine("… \(below) more line\(below == 1 ? "" : "s") (↓ to read)", .menuCurrent)
                    : StyledLine("(end)", .menuDim))
            }
        }
        body.append(StyledLine())
        let canSayYes = layout.fits || c.seenEnd
        var answer: StyledLine
        if c.mustReadFirst {
            answer = StyledLine("read to the end first (↓, PgDn or End), then y", .menuCurrent)
        } else {
            answer = StyledLine("y", canSayYes ? .menuCurrent : .menuDim)
            answer.append(canSayYes ? " yes    " : " yes (after the end)    ", canSayYes ? .menu : .menuDim)
            answer.append("N", .menuCurrent); answer.append(" no (default)", .menu)
        }
        body.append(answer)
        var footer: String? = layout.fits ? nil : "↑↓ PgUp PgDn Home End scroll · Ctrl-C no to all and quit"
        if c.queued > 0 { footer = "\(c.queued) more waiting" + (footer.map { " · " + $0 } ?? " · Ctrl-C no to all and quit") }
        return box(title: TerminalText.sanitized(c.title, .singleLine), body: body, screen: screen, footer: footer)
    }

    static func wrapBody(_ text: String, role: Role, screen: Size) -> [StyledLine] {
        WordWrap.wrap([StyledRun(text, role)], width: max(10, min(70, screen.columns - 8)), firstPrefix: StyledLine(), indent: 0)
    }

    /// The most rows the help box takes: two rows of the screen stay in view above and below it (the header
    /// and the status line at 80×24).
    static func helpRows(screen: Size) -> Int { max(3, screen.rows - 6) }

    /// The first line shown when the help list is scrolled to its end.
    public static func helpMaxTop(keyMap: KeyMap, screen: Size) -> Int {
        let lines = help(keyMap).count
        let rows = helpRows(screen: screen)
        return lines <= rows ? 0 : lines - (rows - 1)
    }

    /// The help list, whole when it fits; otherwise a scrolling window whose last row says how much is below.
    static func helpBox(_ km: KeyMap, top: Int, screen: Size) -> (Rect, [StyledLine]) {
        let lines = help(km)
        let rows = helpRows(screen: screen)
        guard lines.count > rows else { return box(title: "Keys", body: lines, screen: screen, footer: "any key closes") }
        let start = max(0, min(top, helpMaxTop(keyMap: km, screen: screen)))
        let shown = rows - 1
        let below = lines.count - start - shown
        var body = Array(lines[start..<(start + shown)])
        body.append(below > 0 ? StyledLine("↓ \(below) more", .menuCurrent)
            : StyledLine(start > 0 ? "(end) ↑ \(start) above" : "(end)", .menuDim))
        return box(title: "Keys", body: body, screen: screen, footer: "↑↓ PgUp PgDn scroll · other keys close")
    }

    static func help(_ km: KeyMap) -> [StyledLine] {
        var lines: [StyledLine] = []
        var seen = Set<Command>()
        for b in km.bindings where !seen.contains(b.command) {
            seen.insert(b.command)
            let keys = km.keys(for: b.command).map(\.description).joined(separator: " ")
            var l = StyledLine(keys.fitted(to: 14), .menuCurrent)
            l.append(b.command.summary, .menu)
            lines.append(l)
        }
        lines.append(StyledLine())
        lines.append(StyledLine("Voice and persona menus: ↑↓ move, type to filter, Enter choose, Esc close", .menu))
        lines.append(StyledLine("Tool log: ←→ calls / tools; on tools, Space turns one on or off, a its server's", .menu))
        lines.append(StyledLine("Input line: ←→ Ctrl-A/E/K/U/W edit, ↑↓ history, Enter send, Esc leave", .menu))
        return lines
    }

    static func voiceMenu(_ m: VoiceMenu, screen: Size, title: String = "Voice", empty: String = "no voice matches") -> (Rect, [StyledLine]) {
        let list = m.filtered
        let nameW = max(8, (m.voices.map { DisplayWidth.of($0.name) }.max() ?? 8))
        var filterLine = StyledLine("filter: ", .menu)
        filterLine.append(m.filter.isEmpty ? "type to filter" : m.filter, m.filter.isEmpty ? .menuDim : .menuCurrent)
        let maxRows = max(1, screen.rows - 6)
        let visible = min(list.count, maxRows)
        var start = 0
        if m.selection >= visible { start = m.selection - visible + 1 }
        var body = [filterLine]
        if list.isEmpty { body.append(StyledLine(empty, .menuDim)) }
        for (i, v) in list.enumerated().dropFirst(start).prefix(visible) {
            let mark = v.name == m.current ? "●" : " "
            // The detail (a persona's summary) gives way to the screen's width.
            let style = v.style.clipped(to: max(8, screen.columns - 14 - nameW))
            let text = "\(mark) " + v.name.fitted(to: nameW) + "  " + style + " "
            if i == m.selection {
                body.append(StyledLine(text, .menuSelected, fill: .menuSelected))
            } else {
                var l = StyledLine("\(mark) ", v.name == m.current ? .menuCurrent : .menu)
                l.append(v.name.fitted(to: nameW), v.name == m.current ? .menuCurrent : .menu)
                l.append("  " + style + " ", .menuDim)
                body.append(l)
            }
        }
        let footer = list.count > visible ? "\(start + 1)-\(start + visible) of \(list.count)" : "Enter choose · Esc close"
        return box(title: "\(title) (\(m.voices.count))", body: body, screen: screen, footer: footer, minWidth: nameW + 20)
    }

    static func box(title: String, body: [StyledLine], screen: Size, footer: String?, minWidth: Int = 30) -> (Rect, [StyledLine]) {
        let contentW = min(screen.columns - 6, max(minWidth, body.map(\.width).max() ?? 0, DisplayWidth.of(title) + 4, DisplayWidth.of(footer ?? "") + 4))
        let w = max(4, contentW + 4)
        let bodyRows = min(body.count, max(0, screen.rows - 2))
        let h = bodyRows + 2
        let rect = Rect(row: max(0, (screen.rows - h) / 2), column: max(0, (screen.columns - w) / 2), rows: h, columns: w)
        var top = StyledLine("┌─ ", .border)
        top.append(title.clipped(to: max(1, w - 6)), .title)
        top.append(" ", .border)
        top.append(String(repeating: "─", count: max(0, w - 1 - top.width)) + "┐", .border)
        var lines = [top]
        for l in body.prefix(bodyRows) {
            let fill: Role = l.fill == .normal ? .menu : l.fill
            var row = StyledLine("│", .border)
            row.append(" ", fill)
            row.runs += l.padded(to: contentW, role: fill).runs
            row.append(" ", fill)
            row.append("│", .border)
            lines.append(row)
        }
        var bottom = StyledLine("└", .border)
        if let f = footer {
            let f = " " + f.clipped(to: max(1, w - 6)) + " "
            bottom.append(String(repeating: "─", count: max(0, w - 3 - DisplayWidth.of(f))), .border)
            bottom.append(f, .dim)
            bottom.append("─┘", .border)
        } else {
            bottom.append(String(repeating: "─", count: max(0, w - 2)) + "┘", .border)
        }
        lines.append(bottom)
        return (rect, lines)
    }
}
