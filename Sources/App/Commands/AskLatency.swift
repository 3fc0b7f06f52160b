import Conversation
import Live
import ParleyTime
import ParleyLock

/// The latency of `ask`'s turn for `--json`: the end of speech is when the question went out (the typed text
/// sent, or `activityEnd` after the last chunk of `--audio`), restarted when it is asked again on a new
/// connection; the first words come from the event stream, the first reply audio from the receive path.
/// `ask` plays nothing, so the first sound played is never timed (null).
final class AskLatency: Sendable {
    private let turns = Locked(TurnLatency())
    private let clock: TimeSource

    init(clock: TimeSource = .monotonic) { self.clock = clock }

    /// The question went out (again, after a reconnect: only a turn with no reply yet restarts its clock).
    func asked(again: Bool = false) {
        let t = clock.now()
        turns.withLock { again ? $0.resent(at: t) : $0.userFinished(at: t) }
    }

    /// Reply audio reached the playback hook (the receive path's thread).
    func replyAudio() {
        let t = clock.now()
        turns.withLock { _ = $0.replyByte(at: t) }
    }

    /// Takes an event from the session; returns the turn's latency line when the event completed an answered turn.
    func take(_ event: LiveEvent) -> String? {
        let t = clock.now()
        switch event {
        case .outputTranscription(let text, _), .modelText(let text):
            if !text.isEmpty { turns.withLock { _ = $0.transcript(at: t) } }
            return nil
        case .turnComplete:
            return turns.withLock { $0.turnCompleted() }.map(Self.line)
        default:
            return nil
        }
    }

    /// The session's p50/p95 per stage, printed once at the end.
    var summaryLine: String { Self.summaryLine(turns.withLock { $0.summary }) }

    /// `{"event":"latency","firstTextMs":412,"firstAudioMs":380,"firstAudibleMs":null}`: whole milliseconds
    /// from the end of speech; null for a stage the turn did not reach.
    static func line(_ turn: TurnLatency.Turn) -> String {
        var fields: [String: JSONValue] = ["event": "latency"]
        for stage in TurnLatency.Stage.allCases {
            fields[stage.jsonName + "Ms"] = milliseconds(turn.milliseconds(stage))
        }
        return JSONValue.object(fields).compactText
    }

    /// `{"event":"latencySummary","firstText":{"turns":1,"p50Ms":412,"p95Ms":412},…}`.
    static func summaryLine(_ summary: [TurnLatency.StageSummary]) -> String {
        var fields: [String: JSONValue] = ["event": "latencySummary"]
        for s in summary {
            fields[s.stage.jsonName] = .object(["turns": .number(Double(s.count)), "p50Ms": milliseconds(s.p50), "p95Ms": milliseconds(s.p95)])
        }
        return JSONValue.object(fields).compactText
    }

    static func milliseconds(_ ms: Double?) -> JSONValue { ms.map { .number(Double(TurnLatency.whole($0))) } ?? .null }
}
