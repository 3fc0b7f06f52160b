/// A yes/no question, default no (e.g. "run shell command: <exact command>? y/N").
///
/// The detail (e.g. the exact command) is shown whole and truthfully: control characters as visible pictures
/// (`TerminalText`), each line of a multi-line text on its own numbered row, and when it does not fit, a
/// scrolling window with "… N more lines" markers. `y` is refused until the last row has been on screen, so
/// nothing can hide below the popup's edge.
public struct ConfirmModel: Sendable, Equatable {
    public var title: String
    public var question: String
    /// Shown in full (sanitised, wrapped, scrollable, never cut), e.g. the exact command.
    public var detail: String?
    /// The first detail row on screen.
    public var scroll = 0
    /// The last detail row has been on screen.
    public var seenEnd = false
    /// `y` came before the end was seen: the popup says why nothing happened.
    public var mustReadFirst = false
    /// How many more questions wait behind this one.
    public var queued = 0

    public init(title: String = "Confirm", question: String, detail: String? = nil, queued: Int = 0) {
        self.title = title; self.question = question; self.detail = detail; self.queued = queued
    }

    /// The answer a key gave, if any.
    public enum Action: Sendable, Equatable {
        case none
        case yes
        case no
        /// Ctrl-C: no to this and every waiting question, and quit.
        case quit
        /// The view changed (scrolled, or a hint appeared); nothing answered.
        case changed
    }

    /// `y` answers yes once the whole detail has been seen; `n`, Esc, Enter (the default) and `q` answer no;
    /// Ctrl-C quits; ↑↓ PgUp PgDn Space Home End scroll the detail.
    public mutating func handle(_ k: KeyEvent, screen: Size) -> Action {
        guard k.kind != .release else { return .none }
        let layout = self.layout(screen: screen)
        let maxScroll = max(0, layout.rows.count - layout.viewport)
        func scrollTo(_ row: Int) -> Action {
            let before = (scroll, seenEnd, mustReadFirst)
            scroll = min(max(0, row), maxScroll)
            if scroll + layout.viewport >= layout.rows.count { seenEnd = true }
            mustReadFirst = false
            return before == (scroll, seenEnd, mustReadFirst) ? .none : .changed
        }
        if k.modifiers.contains(.control) {
            switch k.key {
            case .character("c"): return .quit
            case .character("n"): return scrollTo(scroll + 1)
            case .character("p"): return scrollTo(scroll - 1)
            default: return .none
            }
        }
        switch k.key {
        case .character("y"), .character("Y"):
            if layout.fits || seenEnd || scroll + layout.viewport >= layout.rows.count { return .yes }
            mustReadFirst = true
            return .changed
        case .character("n"), .character("N"), .escape, .enter, .character("q"): return .no
        case .down, .character("j"): return scrollTo(scroll + 1)
        case .up, .character("k"): return scrollTo(scroll - 1)
        case .pageDown, .character(" "): return scrollTo(scroll + max(1, layout.viewport - 1))
        case .pageUp: return scrollTo(scroll - max(1, layout.viewport - 1))
        case .end, .character("G"): return scrollTo(maxScroll)
        case .home, .character("g"): return scrollTo(0)
        default: return .none
        }
    }

    /// The detail as display rows, and how many of them the popup shows at once.
    public struct Layout: Sendable, Equatable {
        public var rows: [StyledLine]
        public var viewport: Int
        /// Everything fits: no scrolling, no markers.
        public var fits: Bool
    }

    /// Rows the popup needs around the detail: question, blank, blank, answer.
    static let frameRows = 4 + 2

    public func layout(screen: Size) -> Layout {
        let rows = Self.detailRows(detail, width: Self.detailWidth(screen: screen))
        let room = max(1, screen.rows - Self.frameRows)
        if rows.count <= room { return Layout(rows: rows, viewport: rows.count, fits: true) }
        // Two rows go to the "above" and "below" markers.
        return Layout(rows: rows, viewport: max(1, room - 2), fits: false)
    }

    static func detailWidth(screen: Size) -> Int { max(10, min(70, screen.columns - 8)) }

    /// The sanitised detail, one numbered row per line when there are several, wrapped to `width`.
    static func detailRows(_ detail: String?, width: Int) -> [StyledLine] {
        guard let detail else { return [] }
        let lines = detail.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitized(String($0), .singleLine) }
        guard lines.count > 1 else {
            return WordWrap.wrap([StyledRun(lines.first ?? "", .title)], width: width, firstPrefix: StyledLine(), indent: 0)
        }
        let gutter = String(lines.count).count + 1
        var out: [StyledLine] = []
        for (i, line) in lines.enumerated() {
            let number = String(i + 1)
            let prefix = StyledLine(String(repeating: " ", count: gutter - number.count - 1) + number + " ", .dim)
            // Leading spaces would be dropped by wrapping; show them as they are.
            let lead = line.prefix { $0 == " " }
            var first = prefix
            if !lead.isEmpty { first.append(String(lead), .title) }
            out += WordWrap.wrap([StyledRun(String(line.dropFirst(lead.count)), .title)], width: width, firstPrefix: first, indent: gutter)
        }
        return out
    }
}
