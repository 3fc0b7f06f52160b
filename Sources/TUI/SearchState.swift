/// Searching the transcript on screen (`/`): the query as it is typed, the entries that hold it (ignoring
/// case), and the one shown. The search starts from the newest line, as a person at the bottom of a
/// conversation looks back: the newest match first, `n` steps to older ones and `N` to newer, both wrapping.
public struct SearchState: Sendable, Equatable {
    /// The query line while it is being typed; nil once Enter kept the query.
    public var editor: LineEditor?
    /// The query the matches are for.
    public private(set) var query = ""
    /// Ids of the entries holding the query, oldest first.
    public private(set) var matches: [Int] = []
    /// Which of `matches` is shown.
    public private(set) var current: Int?

    public init(editor: LineEditor? = LineEditor()) { self.editor = editor }

    /// Searches `transcript` for `query`; the newest match becomes the one shown.
    public mutating func find(_ query: String, in transcript: TranscriptModel) {
        self.query = query
        matches = Self.matching(query, in: transcript)
        current = matches.isEmpty ? nil : matches.count - 1
    }

    /// Moves `by` matches (negative: older), wrapping; the transcript is searched again first, so lines added
    /// since are found too, and the match shown stays the one shown.
    public mutating func step(_ by: Int, in transcript: TranscriptModel) {
        let shown = currentEntry
        matches = Self.matching(query, in: transcript)
        guard !matches.isEmpty else { current = nil; return }
        let at = shown.flatMap { id in matches.firstIndex(of: id) } ?? (by < 0 ? matches.count : -1)
        current = ((at + by) % matches.count + matches.count) % matches.count
    }

    /// The id of the entry shown, if any.
    public var currentEntry: Int? { current.map { matches[$0] } }

    /// What the status line says: `3/17`, or that nothing matched.
    public var status: String? {
        guard !query.isEmpty else { return nil }
        guard let current else { return "no match for \"\(query)\"" }
        return "\(current + 1)/\(matches.count)"
    }

    /// How an entry is marked on screen: nil when it does not hold the query.
    public func highlight(for id: Int) -> Highlight? {
        guard !query.isEmpty, Self.binarySearch(matches, id) else { return nil }
        return Highlight(query: query, current: id == currentEntry)
    }

    /// What an entry that holds the query shows: every occurrence marked, more strongly in the one shown.
    public struct Highlight: Sendable, Equatable {
        public var query: String
        public var current: Bool
        public init(query: String, current: Bool) { self.query = query; self.current = current }
    }

    static func matching(_ query: String, in transcript: TranscriptModel) -> [Int] {
        guard !query.isEmpty else { return [] }
        let q = query.lowercased()
        return transcript.entries.compactMap { e in
            guard e.speaker != .thought || !e.folded else { return nil }
            return (e.text + e.interim).lowercased().contains(q) ? e.id : nil
        }
    }

    private static func binarySearch(_ sorted: [Int], _ x: Int) -> Bool {
        var (lo, hi) = (0, sorted.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] == x { return true }
            if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return false
    }
}

extension StyledLine {
    /// The line with every occurrence of `query` (ignoring case) from column character `from` on given `role`.
    func highlighting(_ query: String, as role: Role, from: Int) -> StyledLine {
        let q = query.lowercased().map { $0 }
        guard !q.isEmpty else { return self }
        let chars = runs.flatMap { run in run.text.map { (ch: $0, role: run.role) } }
        let lower = chars.map { Character($0.ch.lowercased().count == 1 ? $0.ch.lowercased() : String($0.ch)) }
        var marked = [Bool](repeating: false, count: chars.count)
        var i = max(0, from)
        var any = false
        while i + q.count <= lower.count {
            if lower[i..<(i + q.count)].elementsEqual(q) {
                for j in i..<(i + q.count) { marked[j] = true }
                any = true
                i += q.count
            } else {
                i += 1
            }
        }
        guard any else { return self }
        var out = StyledLine(fill: fill)
        for (k, c) in chars.enumerated() { out.append(String(c.ch), marked[k] ? role : c.role) }
        return out
    }
}
