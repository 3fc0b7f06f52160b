/// The tool-call log pane: a title row, then one row per call (name, server, compact arguments, state,
/// duration); the selected call can be expanded to its full arguments and result.
public enum ToolLogView {
    /// Renders exactly `size.rows` lines of `size.columns` columns (the pane's border is drawn by the caller).
    public static func render(_ m: ToolLogModel, size: Size) -> [StyledLine] {
        guard size.rows > 0, size.columns > 0 else { return [] }
        let w = size.columns
        var title = StyledLine("─ ", .border)
        if m.showingTools {
            title.append("tools", m.focused ? .title : .border)
            title.append(" (\(m.tools.filter(\.on).count) of \(m.tools.count) on) ", .border)
            if m.focused { title.append("Space on/off ←→ ", .dim) }
        } else {
            title.append("tool calls", m.focused ? .title : .border)
            title.append(" (\(m.calls.count)) ", .border)
            if m.focused { title.append("↑↓ Enter ←→ tools ", .dim) }
        }
        title = title.truncated(to: w)
        title.append(String(repeating: "─", count: max(0, w - title.width)), .border)
        var out = [title]
        let bodyRows = size.rows - 1
        if m.showingTools {
            out += toolRows(m, width: w, rows: bodyRows)
        } else if m.calls.isEmpty {
            if bodyRows > 0 { out.append(StyledLine(" none yet", .dim)) }
        } else {
            var blocks: [[StyledLine]] = []
            for (i, c) in m.calls.enumerated() {
                let isSel = m.focused && m.selected == i
                var block = [row(c, width: w, selected: isSel)]
                if isSel && m.expanded { block += details(c, width: w) }
                blocks.append(block)
            }
            // Newest at the bottom; keep the selection in view.
            var start = blocks.count
            var used = 0
            while start > 0 && used + blocks[start - 1].count <= bodyRows { start -= 1; used += blocks[start].count }
            if let s = m.selected, m.focused, s < start {
                start = s; used = 0
                var end = s
                while end < blocks.count && used + blocks[end].count <= bodyRows { used += blocks[end].count; end += 1 }
                out += blocks[start..<max(end, start + 1)].joined()
            } else {
                out += blocks[start...].joined()
            }
        }
        out = Array(out.prefix(size.rows))
        while out.count < size.rows { out.append(StyledLine()) }
        return out.map { $0.padded(to: w) }
    }

    /// The tools, one a row (`●` on, `○` off, the server dimmed), scrolled to keep the selection in view.
    static func toolRows(_ m: ToolLogModel, width w: Int, rows: Int) -> [StyledLine] {
        guard rows > 0 else { return [] }
        if m.tools.isEmpty { return [StyledLine(" no tools in this session", .dim)] }
        let start = max(0, min(m.toolSelection - rows + 1, m.tools.count - rows))
        return m.tools.enumerated().dropFirst(max(0, start)).prefix(rows).map { i, t in
            let selected = m.focused && i == m.toolSelection
            let state = t.on ? "on" : "off"
            var line = StyledLine(selected ? "›" : " ", selected ? .selection : .normal)
            line.append(t.on ? "● " : "○ ", t.on ? .toolOk : .dim)
            let server = t.server.map { " (\(TerminalText.sanitized($0, .singleLine)))" } ?? ""
            let room = max(1, w - 3 - 4)
            let name = TerminalText.sanitized(t.name, .singleLine).elidedInMiddle(to: room)
            line.append(name, t.on ? .toolName : .dim)
            if DisplayWidth.of(name) + DisplayWidth.of(server) <= room { line.append(server, .dim) }
            line = line.padded(to: w - 4)
            line.append(state.leftPadded(to: 4), t.on ? .toolOk : .dim)
            if selected { line = StyledLine(line.runs.map { StyledRun($0.text, .selection) }, fill: .selection) }
            return line.truncated(to: w)
        }
    }

    static func row(_ c: ToolCallEntry, width w: Int, selected: Bool) -> StyledLine {
        let state = c.state.rawValue
        let dur = c.duration.map { formatDuration($0) } ?? ""
        // The state and duration keep their columns on the right; the rest of the row is the left part.
        let leftW = max(0, w - 1 - 9 - 6)
        var left = StyledLine(selected ? "›" : " ", selected ? .selection : .normal)
        var room = max(0, leftW - 1)
        // The name comes first and is whole whenever it fits; only a name that does not is shortened, in its
        // middle (MCP tool names share long prefixes and differ at the end). It leaves room for its server when
        // both fit in a readable way.
        let name = TerminalText.sanitized(c.name, .singleLine)
        let server = c.server.map { " (\(TerminalText.sanitized($0, .singleLine)))" } ?? ""
        let nameW = DisplayWidth.of(name), serverW = DisplayWidth.of(server)
        let shown = nameW + serverW <= room || nameW <= room && serverW == 0 ? name
            : name.elidedInMiddle(to: serverW > 0 && room - serverW >= 12 ? room - serverW : room)
        left.append(shown, selected ? .selection : .toolName)
        room -= DisplayWidth.of(shown)
        if serverW > 0, serverW <= room {
            left.append(server, .dim)
            room -= serverW
        }
        // How a NON_BLOCKING call runs gives way before the name does: shortened, then left out.
        let tag = tags(c).first { $0.isEmpty || 1 + DisplayWidth.of($0) <= room } ?? ""
        if !tag.isEmpty { room -= 1 + DisplayWidth.of(tag) }
        // The arguments take what is left, when enough is left to read.
        if room >= 4 {
            left.append(" ")
            left.append(TerminalText.sanitized(c.arguments, .singleLine).clipped(to: room - 1), .toolArgs)
        }
        var line = left.padded(to: leftW - (tag.isEmpty ? 0 : 1 + DisplayWidth.of(tag)))
        if !tag.isEmpty { line.append(" " + tag, .dim) }
        line.append(" ")
        line.append(state.fitted(to: 9), c.state.role)
        line.append(dur.leftPadded(to: 6), .dim)
        if selected {
            // The whole row in the selection colour, like htop's cursor bar.
            line = StyledLine(line.runs.map { StyledRun($0.text, .selection) }, fill: .selection)
        }
        return line.truncated(to: w)
    }

    /// The tag for how a call runs, longest first: `async·when_idle +2`, `async +2`, `async`, then none.
    static func tags(_ c: ToolCallEntry) -> [String] {
        let partials = c.partials.isEmpty ? nil : "+\(c.partials.count)"
        guard c.behavior == "NON_BLOCKING" else { return [partials, ""].compactMap { $0 } }
        let full = "async" + (c.scheduling.map { "·" + $0.lowercased() } ?? "")
        return [[full, partials], ["async", partials], ["async"]].map { $0.compactMap { $0 }.joined(separator: " ") } + [""]
    }

    static func details(_ c: ToolCallEntry, width w: Int) -> [StyledLine] {
        var lines = WordWrap.wrap([StyledRun(TerminalText.sanitized(c.arguments), .toolArgs)], width: w, firstPrefix: StyledLine("   args ", .dim), indent: 8)
        if let b = c.behavior {
            let mode = b + (c.scheduling.map { ", scheduling \($0)" } ?? "")
            lines += WordWrap.wrap([StyledRun(mode, .normal)], width: w, firstPrefix: StyledLine("   runs ", .dim), indent: 8)
        }
        for p in c.partials {
            lines += WordWrap.wrap([StyledRun(TerminalText.sanitized(p), .normal)], width: w, firstPrefix: StyledLine("partial ", .dim), indent: 8)
        }
        if let r = c.result {
            lines += WordWrap.wrap([StyledRun(TerminalText.sanitized(r), c.state == .error ? .errorText : .normal)], width: w, firstPrefix: StyledLine(" result ", .dim), indent: 8)
        }
        return lines
    }

    static func formatDuration(_ s: Double) -> String {
        if s < 1 { return "\(Int((s * 1000).rounded())) ms" }
        if s < 60 { return "\(Int(s * 10) / 10).\(Int(s * 10) % 10) s" }
        return "\(Int(s) / 60)m\(Int(s) % 60)s"
    }
}
