/// The latency a user feels, per turn: from the end of their speech (or the typed turn) to the first words
/// of the reply on screen, the first reply audio received, and the first reply sample played. Kept for the
/// whole session as percentiles.
struct TurnLatency: Sendable, Equatable {
    /// The turn being timed, from the moment the user stopped talking.
    struct Turn: Sendable, Equatable {
        var endOfSpeech: Double
        var firstTranscript: Double?
        var firstReplyByte: Double?
        var firstAudible: Double?
    }

    private(set) var current: Turn?
    /// Milliseconds, one entry per timed turn.
    private(set) var toTranscript: [Double] = []
    private(set) var toReplyByte: [Double] = []
    private(set) var toAudible: [Double] = []

    /// The user finished a turn (push-to-talk released, open-mic speech ended, a typed turn sent).
    mutating func userFinished(at t: Double) {
        current = Turn(endOfSpeech: t)
    }

    /// The user started talking again: a turn not answered yet is not timed.
    mutating func userStarted() { current = nil }

    mutating func transcript(at t: Double) {
        guard var c = current, c.firstTranscript == nil else { return }
        c.firstTranscript = t
        toTranscript.append((t - c.endOfSpeech) * 1000)
        current = c
    }

    mutating func replyByte(at t: Double) {
        guard var c = current, c.firstReplyByte == nil else { return }
        c.firstReplyByte = t
        toReplyByte.append((t - c.endOfSpeech) * 1000)
        current = c
    }

    /// Returns the milliseconds from the end of speech to the first audible sample, for the header.
    mutating func audible(at t: Double) -> Int? {
        guard var c = current, c.firstAudible == nil else { return nil }
        c.firstAudible = t
        let ms = (t - c.endOfSpeech) * 1000
        toAudible.append(ms)
        current = c
        return Int(ms.rounded())
    }

    /// The p50/p95 summary, one line per stage, for the stats view and `ask --json`.
    var summary: [(stage: String, count: Int, p50: Double?, p95: Double?)] {
        [("first words on screen", toTranscript), ("first reply audio received", toReplyByte), ("first sample played", toAudible)]
            .map { ($0.0, $0.1.count, Self.percentile($0.1, 50), Self.percentile($0.1, 95)) }
    }

    /// Nearest-rank percentile of `values`, nil when there are none.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
