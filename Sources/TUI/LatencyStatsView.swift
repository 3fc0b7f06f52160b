/// The body of the latency overlay: a table of stages (turns, last, p50, p95 in ms; "—" when none) with a
/// line under each saying what it measures. Narrower screens lose the "last" column, then the table becomes
/// two rows a stage (its name, then its numbers); short ones lose the explanations. Every stage's p50 and p95
/// stay visible down to `FrameLayout.minimumSize`.
enum LatencyStatsView {
    /// Columns of one number (`12345 ms` and a space).
    static let numberWidth = 9
    /// Columns of the turn count.
    static let countWidth = 6
    static let stageWidth = 26

    static func body(_ stats: LatencyStats, screen: Size) -> [StyledLine] {
        let available = max(1, screen.columns - 6)
        let showLast = available >= stageWidth + countWidth + 3 * numberWidth
        let table = available >= stageWidth + countWidth + 2 * numberWidth
        // The table head, one row per stage, a blank line and the note; explanations only when all of it fits.
        let explain = table && 1 + 2 * stats.stages.count + 2 <= screen.rows - 2

        var lines: [StyledLine] = []
        if table {
            lines.append(row("stage", "turns", showLast ? ["last", "p50", "p95"] : ["p50", "p95"], role: .menuDim, numberRole: .menuDim))
        }
        for s in stats.stages {
            if table {
                let values = showLast ? [s.lastMs, s.p50Ms, s.p95Ms] : [s.p50Ms, s.p95Ms]
                lines.append(row(s.title, "\(s.count)", values.map(milliseconds), role: .menu, numberRole: .menuCurrent))
            } else {
                lines.append(StyledLine(s.title.clipped(to: available), .menu))
                var numbers = StyledLine("  \(s.count) turn\(s.count == 1 ? "" : "s")  p50 ", .menuDim)
                numbers.append(milliseconds(s.p50Ms), .menuCurrent)
                numbers.append("  p95 ", .menuDim)
                numbers.append(milliseconds(s.p95Ms), .menuCurrent)
                lines.append(numbers.truncated(to: available))
            }
            if explain {
                lines.append(StyledLine("  " + s.explanation, .menuDim).truncated(to: available, ellipsis: true))
            }
        }
        lines.append(StyledLine())
        let timed = stats.stages.map(\.count).max() ?? 0
        let note = timed == 0 ? "no turn timed yet: talk, or type a message" : "ms from the end of your turn; p50/p95 over this session"
        lines.append(StyledLine(note.clipped(to: available), .menuDim))
        return lines
    }

    static func row(_ stage: String, _ count: String, _ cells: [String], role: Role, numberRole: Role) -> StyledLine {
        var l = StyledLine(stage.clipped(to: stageWidth).fitted(to: stageWidth), role)
        l.append(count.leftPadded(to: countWidth), numberRole)
        for c in cells { l.append(c.leftPadded(to: numberWidth), numberRole) }
        return l
    }

    /// `412 ms`, or `—` for a stage no turn reached.
    static func milliseconds(_ ms: Int?) -> String { ms.map { "\($0) ms" } ?? "—" }
}
