import Foundation

/// Wrapped rows of transcript entries, cached per entry and width so long conversations render fast.
/// Owned by the `FrameRenderer` (main thread only).
public final class TranscriptLayout {
    private var cache: [Int: (entry: TranscriptEntry, width: Int, labelWidth: Int, highlight: SearchState.Highlight?, rows: [StyledLine])] = [:]

    /// An empty cache.
    public init() {}

    /// The label column width for a model.
    static func labelWidth(_ m: TranscriptModel) -> Int { max(DisplayWidth.of(m.userLabel), DisplayWidth.of(m.modelLabel)) + 2 }

    /// The search the rows are drawn for (its matches highlighted); set by the view before it asks for rows.
    var search: SearchState?

    /// The wrapped rows of one entry at `width`, with the search's matches in it highlighted.
    func rows(_ e: TranscriptEntry, in m: TranscriptModel, width: Int) -> [StyledLine] {
        let lw = Self.labelWidth(m)
        let highlight = search?.highlight(for: e.id)
        if let c = cache[e.id], c.width == width, c.labelWidth == lw, c.highlight == highlight, c.entry == e { return c.rows }
        var rows = Self.wrap(e, model: m, width: width, labelWidth: lw)
        if let highlight {
            // Highlighting restyles and never moves text: the rows stay where scrolling counted them.
            rows = rows.map { $0.highlighting(highlight.query, as: highlight.current ? .menuSelected : .selection, from: lw) }
        }
        cache[e.id] = (e, width, lw, highlight, rows)
        return rows
    }

    /// Drops cached rows (e.g. after the transcript was replaced).
    public func reset() { cache.removeAll() }

    static func wrap(_ e: TranscriptEntry, model m: TranscriptModel, width: Int, labelWidth lw: Int) -> [StyledLine] {
        var prefix = StyledLine()
        var runs: [StyledRun] = []
        switch e.speaker {
        case .user:
            prefix.append(m.userLabel.fitted(to: lw), .speakerLabel)
            runs = [StyledRun(e.text, .userText), StyledRun(e.interim, .userInterim),
                    StyledRun(e.interim.isEmpty && e.text.isEmpty ? e.partial : " " + e.partial, .dim)]
            if e.partial.isEmpty { runs.removeLast() }
        case .model:
            prefix.append(m.modelLabel.fitted(to: lw), .speakerLabel)
            runs = [StyledRun(e.text, .modelText), StyledRun(e.interim, .modelInterim)]
        case .system:
            prefix.append(String(repeating: " ", count: lw - 2) + "· ", .systemText)
            runs = [StyledRun(e.text + e.interim, .systemText)]
        case .error:
            prefix.append(String(repeating: " ", count: lw - 2) + "! ", .errorText)
            runs = [StyledRun(e.text + e.interim, .errorText)]
        case .thought:
            prefix.append(String(repeating: " ", count: lw - 2) + "∴ ", .dim)
            let all = (e.text + e.interim).trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
            if e.folded {
                let first = all.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
                let heading = first.trimmingCharacters(in: CharacterSet(charactersIn: "*# "))
                let folded = "thinking: " + heading + (all.count > first.count ? " …" : "")
                var line = prefix
                line.append(folded, .dim)
                return [line.truncated(to: width, ellipsis: true)]
            }
            runs = [StyledRun(all.replacingOccurrences(of: "\n", with: " "), .dim)]
        }
        // Outside text: control characters shown, never sent to the terminal.
        runs = runs.map { StyledRun(TerminalText.sanitized($0.text), $0.role) }
        if e.interrupted { runs.append(StyledRun(" [interrupted]", .interruptedMark)) }
        runs = runs.filter { !$0.text.isEmpty }
        return WordWrap.wrap(runs, width: width, firstPrefix: prefix, indent: lw)
    }

    // MARK: scrolling

    /// Rows of the conversation ending at the scroll anchor (or the end), the last `height` of them, plus
    /// whether there is more below.
    func visibleRows(_ m: TranscriptModel, size: Size) -> (rows: [StyledLine], moreBelow: Bool) {
        guard !m.entries.isEmpty, size.rows > 0 else { return ([], false) }
        let anchor = m.scroll.map { clampAnchor($0, m) } ?? (m.entries.count - 1, rows(m.entries[m.entries.count - 1], in: m, width: size.columns).count - 1)
        var collected: [[StyledLine]] = []
        var count = 0
        var i = anchor.0
        let first = rows(m.entries[i], in: m, width: size.columns)
        collected.append(Array(first[0...min(anchor.1, first.count - 1)]))
        count += collected[0].count
        i -= 1
        while count < size.rows && i >= 0 {
            let r = rows(m.entries[i], in: m, width: size.columns)
            collected.append(r); count += r.count; i -= 1
        }
        var out = Array(collected.reversed().joined())
        if out.count > size.rows { out.removeFirst(out.count - size.rows) }
        var moreBelow = m.scroll != nil && (anchor.0 < m.entries.count - 1 || anchor.1 < first.count - 1)
        // Near the top with room left: fill downward, and follow if that reaches the end.
        if out.count < size.rows && moreBelow {
            var j = anchor.0, row = anchor.1 + 1
            while out.count < size.rows && j < m.entries.count {
                let r = rows(m.entries[j], in: m, width: size.columns)
                if row < r.count { out.append(r[row]); row += 1 } else { j += 1; row = 0 }
            }
            moreBelow = j < m.entries.count && !(j == m.entries.count - 1 && row >= rows(m.entries[j], in: m, width: size.columns).count)
        }
        return (out, moreBelow)
    }

    private func clampAnchor(_ s: TranscriptScroll, _ m: TranscriptModel) -> (Int, Int) {
        let i = min(max(0, s.entryIndex), m.entries.count - 1)
        return (i, max(0, s.row))
    }

    /// Applies a scroll command to the model for a viewport.
    func scroll(_ cmd: ScrollCommand, _ m: inout TranscriptModel, viewport: Size) {
        guard !m.entries.isEmpty, viewport.rows > 0 else { m.scroll = nil; return }
        let w = viewport.columns, h = viewport.rows
        let lastIndex = m.entries.count - 1
        var (i, row) = m.scroll.map { clampAnchor($0, m) } ?? (lastIndex, rows(m.entries[lastIndex], in: m, width: w).count - 1)
        let countAtScroll = m.scroll?.entryCountAtScroll ?? m.entries.count
        var delta: Int
        switch cmd {
        case .bottom: m.scroll = nil; return
        case .top: delta = Int.min / 2
        case .pageUp: delta = -(max(1, h - 1))
        case .pageDown: delta = max(1, h - 1)
        case .lines(let n): delta = n
        case .entry(let id):
            // The entry's first row a third of the way down the view, or as near as the ends allow.
            guard m.entries.indices.contains(id) else { return }
            let countAtScroll = m.scroll?.entryCountAtScroll ?? m.entries.count
            m.scroll = TranscriptScroll(entryIndex: id, row: 0, entryCountAtScroll: countAtScroll)
            let below = h - 1 - h / 3
            // Down from there; reaching the end means following, which still shows the entry.
            if below > 0 { scroll(.lines(below), &m, viewport: viewport) }
            return
        }
        if delta < 0 {
            var n = -delta
            while n > 0 {
                if row >= n { row -= n; n = 0 } else {
                    n -= row + 1
                    if i == 0 { row = 0; break }
                    i -= 1; row = rows(m.entries[i], in: m, width: w).count - 1
                }
            }
            // Keep a full screen above the anchor: the top of the conversation stays on the top row.
            var above = row + 1, k = i - 1
            while above < h && k >= 0 { above += rows(m.entries[k], in: m, width: w).count; k -= 1 }
            if above < h {
                var need = h - above
                while need > 0 {
                    let r = rows(m.entries[i], in: m, width: w)
                    if row + 1 < r.count { row += 1; need -= 1 } else if i < lastIndex { i += 1; row = 0; need -= 1 } else { m.scroll = nil; return }
                }
            }
        } else {
            var n = delta
            while n > 0 {
                let r = rows(m.entries[i], in: m, width: w)
                if row + n < r.count { row += n; n = 0 } else {
                    n -= r.count - row
                    if i == lastIndex { m.scroll = nil; return }
                    i += 1; row = 0
                }
            }
            if i == lastIndex && row >= rows(m.entries[i], in: m, width: w).count - 1 { m.scroll = nil; return }
        }
        m.scroll = TranscriptScroll(entryIndex: i, row: row, entryCountAtScroll: countAtScroll)
    }
}
