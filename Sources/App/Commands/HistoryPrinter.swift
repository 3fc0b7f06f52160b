import Conversation
import Foundation
import TUI
#if canImport(Glibc)
import Glibc
#endif

/// How `parley history` writes: colours only on a terminal without `NO_COLOR` (or `TERM=dumb`), lines cut
/// to the terminal's width only on a terminal. Every stored text passes `TerminalText` first (a transcript
/// holds what the server and tools sent).
struct HistoryPrinter {
    var color: Bool
    /// Columns to fit, or nil to write whole lines (a pipe or a file).
    var width: Int?

    static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> HistoryPrinter {
        let tty = isatty(1) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return HistoryPrinter(
            color: tty && !noColor && environment["TERM"] != "dumb",
            width: tty ? TerminalProbe.size(fd: 1)?.columns : nil)
    }

    enum Style: String {
        case id = "1", dim = "2", user = "36", match = "1;7", error = "31"
    }

    func paint(_ text: String, _ style: Style) -> String {
        color && !text.isEmpty ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    static func clean(_ text: String?) -> String {
        TerminalText.sanitized(text ?? "", .singleLine)
    }

    /// Cut to `columns` display columns, with an ellipsis when something was cut.
    static func clip(_ text: String, _ columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard DisplayWidth.of(text) > columns else { return text }
        var out = ""
        var left = columns - 1
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w > left { break }
            out.append(ch)
            left -= w
        }
        return out + "…"
    }

    static func pad(_ text: String, _ columns: Int) -> String {
        let w = DisplayWidth.of(text)
        return w >= columns ? text : text + String(repeating: " ", count: columns - w)
    }

    // MARK: - The list

    func list(_ summaries: [ConversationSummary]) -> String {
        let withCost = summaries.contains { $0.usd != nil }
        let rows = summaries.map { s -> [String] in
            var who = Self.clean(s.voice ?? "?")
            if let p = s.persona { who += " · " + Self.clip(Self.clean(p), 24) }
            var row = [
                s.id, s.start.map { Self.localTime($0, seconds: false) } ?? "?", s.length.map(Self.duration) ?? "?",
                String(s.turns), Self.clean((s.model ?? "?").replacingOccurrences(of: "models/", with: "")), who,
            ]
            if withCost { row.append(s.usd.map { String(format: "$%.2f", $0) } ?? "?") }
            return row
        }
        var header = ["ID", "STARTED", "LENGTH", "TURNS", "MODEL", "VOICE / PERSONA"]
        if withCost { header.append("COST") }
        header.append("FIRST WORDS")
        let widths = header.indices.dropLast().map { c in ([header[c]] + rows.map { $0[c] }).map(DisplayWidth.of).max() ?? 0 }
        let fixed = widths.reduce(0, +) + 2 * widths.count
        let rest = width.map { max(10, $0 - fixed) } ?? 80
        let rightAligned: Set<String> = ["LENGTH", "TURNS", "COST"]
        func line(_ cells: [String], last: String, styled: Bool) -> String {
            var out = ""
            for (c, cell) in cells.enumerated() {
                let padded = rightAligned.contains(header[c])
                    ? String(repeating: " ", count: max(0, widths[c] - DisplayWidth.of(cell))) + cell
                    : Self.pad(cell, widths[c])
                out += (styled && c == 0 ? paint(padded, .id) : padded) + "  "
            }
            return out + last + "\n"
        }
        var out = paint(line(Array(header.dropLast()), last: header.last ?? "", styled: false).dropLast() + "", .dim) + "\n"
        for (s, row) in zip(summaries, rows) {
            out += line(row, last: Self.clip(Self.clean(s.firstWords), rest), styled: true)
        }
        return out
    }

    // MARK: - Search results

    /// The matches under their conversations' IDs, each with its line of context; a line shown once even when
    /// it is both a match and another's context.
    func matches(_ found: [TranscriptSearch.Match], words: [String]) -> String {
        var out = ""
        var i = 0
        while i < found.count {
            let conversation = found[i].conversation
            var shown: [Int: (record: TranscriptRecord, match: Bool)] = [:]
            while i < found.count, found[i].conversation == conversation {
                let m = found[i]
                shown[m.index] = (m.line, true)
                if let c = m.context, shown[c.index] == nil { shown[c.index] = (c.record, false) }
                i += 1
            }
            out += (out.isEmpty ? "" : "\n") + paint(conversation, .id) + "\n"
            for index in shown.keys.sorted() {
                guard let entry = shown[index] else { continue }
                out += entry.match ? said(entry.record, words: words, style: nil) : said(entry.record, words: [], style: .dim)
            }
        }
        return out
    }

    /// One said line: its time, who said it and the text, the searched words marked.
    private func said(_ r: TranscriptRecord, words: [String], style: Style?) -> String {
        let time = r.time.flatMap(ConversationSummary.seconds).map { Self.localTime($0, seconds: true) } ?? "?"
        let user = r.turn?.speaker == .user
        let who = user ? "You" : "Gemini"
        let prefix = "  \(time)  \(Self.pad(who, 6))  "
        var text = Self.clean(r.said?.text)
        if let width { text = Self.window(text, around: words, columns: max(10, width - DisplayWidth.of(prefix))) }
        let marked = style == nil ? mark(text, words: words) : text
        let whoPainted = style == nil && user ? paint(who, .user) : who
        let line = "  \(time)  \(whoPainted)\(String(repeating: " ", count: max(0, 6 - who.count)))  \(marked)"
        return (style.map { paint(line, $0) } ?? line) + "\n"
    }

    /// The part of a long line around the first searched word that fits in `columns`.
    static func window(_ text: String, around words: [String], columns: Int) -> String {
        guard DisplayWidth.of(text) > columns else { return text }
        let lower = text.lowercased()
        guard let w = words.first, let r = lower.range(of: w), lower.count == text.count else { return clip(text, columns) }
        let at = lower.distance(from: lower.startIndex, to: r.lowerBound)
        let lead = max(0, at - columns / 3)
        guard lead > 0 else { return clip(text, columns) }
        return "…" + clip(String(text.dropFirst(lead)), columns - 1)
    }

    /// The searched words in `text` marked (reverse video), when colours are on.
    private func mark(_ text: String, words: [String]) -> String {
        guard color, !words.isEmpty else { return text }
        let lower = text.lowercased()
        // Case folding can change lengths (ß, İ); mark nothing rather than the wrong letters.
        guard lower.count == text.count else { return text }
        let chars = Array(text), lowerChars = Array(lower)
        var hit = [Bool](repeating: false, count: chars.count)
        for w in words {
            let wc = Array(w)
            guard !wc.isEmpty, wc.count <= lowerChars.count else { continue }
            for i in 0...(lowerChars.count - wc.count) where Array(lowerChars[i..<(i + wc.count)]) == wc {
                for k in i..<(i + wc.count) { hit[k] = true }
            }
        }
        var out = ""
        var i = 0
        while i < chars.count {
            var j = i
            while j < chars.count, hit[j] == hit[i] { j += 1 }
            let piece = String(chars[i..<j])
            out += hit[i] ? paint(piece, .match) : piece
            i = j
        }
        return out
    }

    // MARK: - One conversation

    func conversation(_ id: String, _ records: [TranscriptRecord]) -> String {
        let summaryLine = records.first { $0.session != nil }.map { r in
            "model \(Self.clean(r.session?.model ?? "?")) · voice \(Self.clean(r.session?.voice ?? "?"))"
                + (r.time.flatMap(ConversationSummary.seconds).map { " · started " + Self.localTime($0, seconds: false) } ?? "")
        }
        var out = paint(id, .id) + (summaryLine.map { "  " + paint($0, .dim) } ?? "") + "\n"
        for r in records {
            let time = r.time.flatMap(ConversationSummary.seconds).map { Self.localTime($0, seconds: true) } ?? "        "
            func row(_ who: String, _ text: String, _ style: Style? = nil) {
                let lines = TerminalText.sanitized(text).split(separator: "\n", omittingEmptySubsequences: false)
                let first = "  \(time)  \(Self.pad(who, 6))  "
                let indent = String(repeating: " ", count: DisplayWidth.of(first))
                for (n, l) in lines.enumerated() {
                    let line = (n == 0 ? first : indent) + l
                    out += (style.map { paint(line, $0) } ?? line) + "\n"
                }
            }
            let mark = r.recordingMark.map { $0 + " " } ?? ""
            switch r.entry {
            case .said(let s) where s.speaker == .user: row("You", mark + s.text)
            case .said(let s) where s.speaker == .model: row("Gemini", mark + s.text + (s.interrupted ? " (interrupted)" : ""))
            case .said(let s): row("", s.text, s.speaker == .error ? .error : .dim)
            case .tool(let t): row("tool", "\(t.name) — \(t.state.rawValue)", .dim)
            case .voice(let name, _): row("", "voice changed to \(name)", .dim)
            case .session(let s) where s.continued:
                row("", "continued with model \(s.model), voice \(s.voice)", .dim)
            default: break
            }
        }
        return out
    }

    // MARK: - Times

    /// Local `2026-11-23 18:45` (or `18:45:43` with seconds only).
    static func localTime(_ seconds: Double, seconds withSeconds: Bool) -> String {
        var t = time_t(seconds.rounded(.down))
        var tm = tm()
        localtime_r(&t, &tm)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if withSeconds { return "\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec))" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday)) \(two(tm.tm_hour)):\(two(tm.tm_min))"
    }

    /// `45s`, `12m04s`, `2h05m`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(two(s % 60))s" }
        return "\(s / 3600)h\(two(s % 3600 / 60))m"
    }
}
