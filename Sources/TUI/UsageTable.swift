/// What the usage overlay shows: one row a turn (tokens by modality, what it cost, the running total) and the
/// lines under the table (totals, the context against the window, the budget, where the prices come from). The
/// App computes every figure and formats the money; TUI only lays it out.
public struct UsageTable: Sendable, Equatable {
    /// One turn. A nil count is unknown (the service did not report it), shown as `—`.
    public struct Row: Sendable, Equatable {
        public var turn: Int
        /// Billed input: the prompt (the whole context) less what was cached.
        public var input: Int?
        public var inputText: Int?
        public var inputAudio: Int?
        public var inputImageVideo: Int?
        public var cached: Int?
        public var output: Int?
        public var thoughts: Int?
        /// `$0.0042`, or `?` when part of it has no price.
        public var cost: String
        /// The conversation's cost up to and including this turn.
        public var cumulative: String

        public init(
            turn: Int, input: Int?, inputText: Int?, inputAudio: Int?, inputImageVideo: Int?, cached: Int?, output: Int?,
            thoughts: Int?, cost: String, cumulative: String
        ) {
            self.turn = turn; self.input = input; self.inputText = inputText; self.inputAudio = inputAudio
            self.inputImageVideo = inputImageVideo; self.cached = cached; self.output = output; self.thoughts = thoughts
            self.cost = cost; self.cumulative = cumulative
        }
    }

    public var rows: [Row]
    /// Lines under the table, most important first (shorter screens keep the first ones).
    public var notes: [String]
    /// The budget line is a warning (80 % or more spent).
    public var warning: String?

    public init(rows: [Row], notes: [String], warning: String? = nil) {
        self.rows = rows; self.notes = notes; self.warning = warning
    }
}
