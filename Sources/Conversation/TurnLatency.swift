import TUI

/// The latency a user feels, per turn: from the end of their speech (or the typed turn) to the first words
/// of the reply on screen, the first reply audio received, and the first reply sample played. Kept for the
/// whole session as percentiles.
///
/// Each stage is timed at most once per turn, never before the turn's end of speech (a reading from before
/// it belongs to an earlier reply), and only while the turn is open: a completed turn takes no more words or
/// audio (a later reply the model starts on its own is not this turn's), except the first audible sample of
/// audio it already received, which the speaker plays after the server has finished sending.
package struct TurnLatency: Sendable, Equatable {
    /// The timed stages, in the order a reply reaches the user.
    package enum Stage: CaseIterable, Sendable {
        /// End of speech → the first words of the reply (transcript or text).
        case firstText
        /// End of speech → the first reply audio received from the server.
        case firstAudio
        /// End of speech → the first reply sample played by the speaker.
        case firstAudible

        /// The stage's name in the stats view.
        package var title: String {
            switch self {
            case .firstText: "first words on screen"
            case .firstAudio: "first reply audio received"
            case .firstAudible: "first sound played"
            }
        }

        /// One line saying what is measured, for the stats view.
        var explanation: String {
            switch self {
            case .firstText: "end of speech or Enter → the reply's first words are shown"
            case .firstAudio: "end of speech or Enter → the first reply audio arrives"
            case .firstAudible: "end of speech or Enter → the speaker plays its first sample"
            }
        }

        /// The stage's name in `ask --json` (`firstTextMs`, …).
        package var jsonName: String {
            switch self {
            case .firstText: "firstText"
            case .firstAudio: "firstAudio"
            case .firstAudible: "firstAudible"
            }
        }
    }

    /// The turn being timed, from the moment the user stopped talking.
    package struct Turn: Sendable, Equatable {
        var endOfSpeech: Double
        var firstTranscript: Double?
        var firstReplyByte: Double?
        var firstAudible: Double?
        /// The reply's turn completed: no more words or audio are this turn's.
        package var completed = false

        /// Milliseconds from the end of speech to a stage, nil when the stage did not happen.
        package func milliseconds(_ stage: Stage) -> Double? {
            let at: Double?
            switch stage {
            case .firstText: at = firstTranscript
            case .firstAudio: at = firstReplyByte
            case .firstAudible: at = firstAudible
            }
            return at.map { ($0 - endOfSpeech) * 1000 }
        }

        var hasAnyStage: Bool { firstTranscript != nil || firstReplyByte != nil || firstAudible != nil }
    }

    /// One stage over the session, in milliseconds.
    package struct StageSummary: Sendable, Equatable {
        package var stage: Stage
        package var count: Int
        package var last: Double?
        package var p50: Double?
        package var p95: Double?
    }

    package private(set) var current: Turn?
    /// Milliseconds, one entry per timed turn.
    private(set) var toTranscript: [Double] = []
    private(set) var toReplyByte: [Double] = []
    private(set) var toAudible: [Double] = []

    package init() {}

    /// The user finished a turn (push-to-talk released, open-mic speech ended, a typed turn sent).
    package mutating func userFinished(at t: Double) {
        current = Turn(endOfSpeech: t)
    }

    /// The user started talking again: a turn not answered yet is not timed.
    mutating func userStarted() { current = nil }

    /// The turn is not timed (queued while offline, or the connection failed): it would measure the outage.
    package mutating func forget() { current = nil }

    /// The question went out again on a new connection: if nothing of the reply came yet, the clock restarts
    /// from now, so the time spent reconnecting is not counted as the reply's.
    package mutating func resent(at t: Double) {
        guard var c = current, !c.hasAnyStage, !c.completed else { return }
        c.endOfSpeech = t
        current = c
    }

    /// The reply's turn completed. A turn that got nothing yet (a blocking tool call, or the completion of a
    /// reply the user cut off before this turn) stays open. Returns the finished turn.
    @discardableResult
    package mutating func turnCompleted() -> Turn? {
        guard var c = current, c.hasAnyStage, !c.completed else { return nil }
        c.completed = true
        current = c
        return c
    }

    /// The first words of the reply were shown; returns the milliseconds recorded, if this was the first.
    @discardableResult
    package mutating func transcript(at t: Double) -> Double? {
        firstOutput(\.firstTranscript, at: t, into: \.toTranscript)
    }

    /// The first reply audio arrived; returns the milliseconds recorded, if this was the first.
    @discardableResult
    package mutating func replyByte(at t: Double) -> Double? {
        firstOutput(\.firstReplyByte, at: t, into: \.toReplyByte)
    }

    /// Notes the first output of a kind in the open turn (`stage`) and records its milliseconds from the end
    /// of speech in `samples`; nil when the turn is done, already has it, or `t` is before the end of speech.
    private mutating func firstOutput(
        _ stage: WritableKeyPath<Turn, Double?>, at t: Double, into samples: WritableKeyPath<TurnLatency, [Double]>
    ) -> Double? {
        guard var c = current, !c.completed, c[keyPath: stage] == nil, t >= c.endOfSpeech else { return nil }
        c[keyPath: stage] = t
        current = c
        let ms = (t - c.endOfSpeech) * 1000
        self[keyPath: samples].append(ms)
        return ms
    }

    /// The speaker played the first sample of this turn's reply. Only audio the turn received can be heard, so
    /// a turn without reply audio (text only, or sound off) times nothing here. Returns the milliseconds from
    /// the end of speech, for the header.
    mutating func audible(at t: Double) -> Int? {
        guard var c = current, c.firstAudible == nil, let received = c.firstReplyByte, t >= received else { return nil }
        c.firstAudible = t
        current = c
        let ms = (t - c.endOfSpeech) * 1000
        toAudible.append(ms)
        return Int(ms.rounded())
    }

    /// The milliseconds recorded for a stage, one per timed turn.
    package func samples(_ stage: Stage) -> [Double] {
        switch stage {
        case .firstText: toTranscript
        case .firstAudio: toReplyByte
        case .firstAudible: toAudible
        }
    }

    /// Count, last, p50 and p95 of each stage, for the stats view and `ask --json`.
    package var summary: [StageSummary] {
        Stage.allCases.map { stage in
            let v = samples(stage)
            return StageSummary(stage: stage, count: v.count, last: v.last,
                                p50: Self.percentile(v, 50), p95: Self.percentile(v, 95))
        }
    }

    /// Nearest-rank percentile of `values`, nil when there are none.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}

extension TurnLatency {
    /// The stats overlay's content: every stage, in whole milliseconds.
    package var stats: LatencyStats {
        LatencyStats(stages: summary.map { s in
            LatencyStats.Stage(title: s.stage.title, explanation: s.stage.explanation, count: s.count,
                               lastMs: s.last.map(Self.whole), p50Ms: s.p50.map(Self.whole), p95Ms: s.p95.map(Self.whole))
        })
    }

    package static func whole(_ ms: Double) -> Int { Int(ms.rounded()) }
}
