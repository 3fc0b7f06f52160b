/// What the latency overlay shows: for each stage of a reply, how many turns were timed and the last, median
/// and 95th-percentile milliseconds (the App computes them; TUI only draws).
public struct LatencyStats: Sendable, Equatable {
    /// One stage, e.g. "first words on screen".
    public struct Stage: Sendable, Equatable {
        public var title: String
        /// One line saying what is measured.
        public var explanation: String
        /// Turns timed for this stage.
        public var count: Int
        public var lastMs: Int?
        public var p50Ms: Int?
        public var p95Ms: Int?

        public init(title: String, explanation: String, count: Int, lastMs: Int? = nil, p50Ms: Int? = nil, p95Ms: Int? = nil) {
            self.title = title; self.explanation = explanation; self.count = count
            self.lastMs = lastMs; self.p50Ms = p50Ms; self.p95Ms = p95Ms
        }
    }

    public var stages: [Stage]

    public init(stages: [Stage]) { self.stages = stages }
}
