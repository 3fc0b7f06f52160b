/// The body of the usage overlay: a table of turns (billed input with its text / audio / image-video split,
/// cached, output, thoughts, cost, running total), the newest at the bottom, then the notes. Narrow screens lose
/// the thoughts, image/video, cached and split columns in that order; short ones show only the newest turns.
enum UsageView {
    static let turnWidth = 5
    static let numberWidth = 8
    static let moneyWidth = 10

    /// Columns, most important first; the ones that do not fit are dropped from the end of this list.
    enum Column: CaseIterable {
        case input, output, cost, cumulative, audio, text, cached, imageVideo, thoughts

        var title: String {
            switch self {
            case .input: "in"
            case .text: "text"
            case .audio: "audio"
            case .imageVideo: "img/vid"
            case .cached: "cached"
            case .output: "out"
            case .thoughts: "thought"
            case .cost: "cost"
            case .cumulative: "total"
            }
        }

        var width: Int { self == .cost || self == .cumulative ? UsageView.moneyWidth : UsageView.numberWidth }

        func cell(_ r: UsageTable.Row) -> String {
            switch self {
            case .input: UsageView.count(r.input)
            case .text: UsageView.count(r.inputText)
            case .audio: UsageView.count(r.inputAudio)
            case .imageVideo: UsageView.count(r.inputImageVideo)
            case .cached: UsageView.count(r.cached)
            case .output: UsageView.count(r.output)
            case .thoughts: UsageView.count(r.thoughts)
            case .cost: r.cost
            case .cumulative: r.cumulative
            }
        }
    }

    /// The order columns are drawn in (left to right).
    static let drawOrder: [Column] = [.input, .text, .audio, .imageVideo, .cached, .output, .thoughts, .cost, .cumulative]

    static func body(_ t: UsageTable, screen: Size) -> [StyledLine] {
        let available = max(1, screen.columns - 6)
        var shown: [Column] = []
        var width = turnWidth
        for c in Column.allCases where width + c.width <= available {
            shown.append(c)
            width += c.width
        }
        let columns = drawOrder.filter { shown.contains($0) }
        var lines: [StyledLine] = []
        var head = StyledLine("turn".fitted(to: turnWidth), .menuDim)
        for c in columns { head.append(c.title.leftPadded(to: c.width), .menuDim) }
        // Rows for the table: the head, the turns, a blank line, the notes; at least one turn and one note.
        let room = max(1, screen.rows - 4 - 1 - 1 - min(t.notes.count + (t.warning == nil ? 0 : 1), 4))
        lines.append(head.truncated(to: available))
        if t.rows.isEmpty {
            lines.append(StyledLine("no usage reported yet: it comes at the end of each turn", .menuDim).truncated(to: available, ellipsis: true))
        }
        let hidden = max(0, t.rows.count - room)
        if hidden > 0 { lines.append(StyledLine("… \(hidden) earlier turn\(hidden == 1 ? "" : "s")", .menuDim)) }
        for r in t.rows.suffix(t.rows.count - hidden - (hidden > 0 ? 1 : 0)) {
            var l = StyledLine(String(r.turn).fitted(to: turnWidth), .menu)
            for c in columns { l.append(c.cell(r).leftPadded(to: c.width), c == .cost || c == .cumulative ? .menuCurrent : .menu) }
            lines.append(l.truncated(to: available))
        }
        lines.append(StyledLine())
        if let w = t.warning { lines.append(StyledLine(w, .stateResuming).truncated(to: available, ellipsis: true)) }
        for n in t.notes { lines.append(StyledLine(n, .menuDim).truncated(to: available, ellipsis: true)) }
        return lines
    }

    /// `41,230`, or `—` when not reported.
    static func count(_ n: Int?) -> String { n.map(HeaderView.grouped) ?? "—" }
}
