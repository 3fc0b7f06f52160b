/// The two header rows: name, state, model, voice, DEMO; then session age, goAway, tokens, cost (with the
/// budget's warning), context fill, latency, talk mode.
public enum HeaderView {
    /// Rows the header takes.
    public static let height = 2

    /// The header rows for a width, each exactly `width` columns.
    public static func render(_ m: HeaderModel, width: Int) -> [StyledLine] {
        var top = StyledLine()
        top.append(" \(m.appName) ", .title)
        top.append(" ")
        let (stateText, stateRole) = state(m.connection)
        top.append("● " + stateText, stateRole)
        if !m.voice.isEmpty { top.append("  voice ", .dim); top.append(m.voice, .header) }
        if !m.model.isEmpty { top.append("  " + m.model, .dim) }
        let demo = m.demo ? " DEMO " : ""
        let rec = m.recording ? "● REC " : ""
        let marks = DisplayWidth.of(demo) + (m.demo ? 1 : 0) + DisplayWidth.of(rec) + (m.recording && !m.demo ? 1 : 0)
        var topLine = top.truncated(to: max(0, width - marks), ellipsis: true)
        if m.demo || m.recording {
            topLine = topLine.padded(to: max(0, width - marks))
            if m.recording { topLine.append(rec, .stateFailed) }
            if m.demo { topLine.append(demo, .demoMarker) }
        }

        var items: [[StyledRun]] = []
        if let a = m.sessionAge { items.append([StyledRun("session ", .dim), StyledRun(duration(a), .header)]) }
        if let g = m.goAwaySeconds { items.append([StyledRun("goAway in ", .stateResuming), StyledRun("\(g) s", .stateResuming)]) }
        if let t = m.tokens { items.append([StyledRun("tokens ", .dim), StyledRun(grouped(t), .header)]) }
        if let c = m.cost {
            switch m.budget {
            case .fine: items.append([StyledRun(c, .header)])
            case .warning(let p): items.append([StyledRun(c, .stateResuming), StyledRun(" budget \(p)%", .stateResuming)])
            case .reached: items.append([StyledRun(c, .stateFailed), StyledRun(" budget reached", .stateFailed)])
            }
        }
        if let p = m.contextPercent { items.append([StyledRun("context ", .dim), StyledRun("\(p)%", p >= 80 ? .stateResuming : .header)]) }
        if let l = m.latencyMs { items.append([StyledRun("latency ", .dim), StyledRun("\(l) ms", .header)]) }
        if let v = m.vision { items.insert([StyledRun(v, m.visionLive ? .stateLive : .dim)], at: 0) }
        // The model's background work goes first: it is what changes while the user waits.
        if let status = m.interactionStatus { items.insert([StyledRun("model ", .dim), StyledRun(status, .stateResuming)], at: 0) }
        let ptt: String
        switch m.pushToTalk {
        case .kittyHold: ptt = "PTT: hold (kitty)"
        case .tapToggle: ptt = "PTT: tap/hold"
        case .openMic: ptt = "open mic"
        }
        var second = StyledLine(" ")
        let right = " " + ptt + " "
        for item in items {
            let w = item.reduce(0) { $0 + DisplayWidth.of($1.text) }
            if second.width + w + 2 + DisplayWidth.of(right) > width { break }
            for r in item { second.append(r.text, r.role) }
            second.append("  ")
        }
        second = second.padded(to: max(0, width - DisplayWidth.of(right)))
        second.append(right, m.pushToTalk == .openMic ? .stateLive : .header)
        return [topLine.padded(to: width), second.truncated(to: width)]
    }

    static func state(_ s: ConnectionState) -> (String, Role) {
        switch s {
        case .connecting: return ("connecting", .stateConnecting)
        case .live: return ("live", .stateLive)
        case .resuming(let n?): return ("resuming in \(n) s", .stateResuming)
        case .resuming(nil): return ("resuming", .stateResuming)
        case .failed(let r): return ("failed: \(r)", .stateFailed)
        case .offline: return ("offline", .stateOffline)
        case .offlineRetrying(let n?): return ("offline — retrying in \(n) s (r: now)", .stateOffline)
        case .offlineRetrying(nil): return ("offline — retrying now", .stateOffline)
        }
    }

    static func duration(_ s: Int) -> String {
        let h = s / 3600, m = s / 60 % 60, sec = s % 60
        return h > 0 ? "\(h):\(pad2(m)):\(pad2(sec))" : "\(m):\(pad2(sec))"
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// `41230` → `41,230`.
    public static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, c) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }
}
