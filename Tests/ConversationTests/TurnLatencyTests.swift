@testable import Conversation
import TUI
import XCTest

final class TurnLatencyTests: XCTestCase {
    func testEachStageIsTimedOncePerTurnFromTheEndOfSpeech() {
        var l = TurnLatency()
        l.userFinished(at: 10)
        l.transcript(at: 10.3)
        l.transcript(at: 10.5)
        l.replyByte(at: 10.4)
        XCTAssertEqual(l.audible(at: 10.45), 450)
        XCTAssertNil(l.audible(at: 11), "only the first sample counts")
        XCTAssertEqual(l.toTranscript.first ?? 0, 300, accuracy: 1e-6)
        XCTAssertEqual(l.toReplyByte.first ?? 0, 400, accuracy: 1e-6)
    }

    func testNothingIsTimedWithoutAFinishedUserTurn() {
        var l = TurnLatency()
        l.transcript(at: 1)
        XCTAssertNil(l.audible(at: 2))
        l.userFinished(at: 3)
        l.userStarted()
        l.replyByte(at: 4)
        XCTAssertTrue(l.toReplyByte.isEmpty, "the user spoke again before any reply: not a turn to time")
    }

    func testPercentilesAreNearestRank() {
        let v = (1...100).map(Double.init)
        XCTAssertEqual(TurnLatency.percentile(v, 50), 50)
        XCTAssertEqual(TurnLatency.percentile(v, 95), 95)
        XCTAssertEqual(TurnLatency.percentile([7], 95), 7)
        XCTAssertNil(TurnLatency.percentile([], 50))
    }
}

final class TurnLatencyStageTests: XCTestCase {
    func testACompletedTurnTakesNoLaterReplyButStillItsOwnFirstSound() {
        var l = TurnLatency()
        l.userFinished(at: 1)
        l.transcript(at: 1.2)
        l.replyByte(at: 1.3)
        XCTAssertNotNil(l.turnCompleted())
        XCTAssertEqual(l.audible(at: 1.5), 500, "the speaker plays after the server has sent everything")
        XCTAssertNil(l.transcript(at: 9), "a reply the model starts later is not this turn's")
        XCTAssertNil(l.replyByte(at: 9))
        XCTAssertEqual(l.toTranscript.count, 1)
        XCTAssertEqual(l.toReplyByte.count, 1)
        XCTAssertEqual(l.toAudible.count, 1)
    }

    func testATextOnlyReplyTimesNoAudioStages() {
        var l = TurnLatency()
        l.userFinished(at: 1)
        l.transcript(at: 1.25)
        l.turnCompleted()
        XCTAssertNil(l.replyByte(at: 4), "audio after the turn completed is another reply's")
        XCTAssertNil(l.audible(at: 4.2))
        XCTAssertEqual(l.summary.map(\.count), [1, 0, 0])
        XCTAssertEqual(l.summary.map(\.p50), [250, nil, nil])
    }

    func testNothingIsHeardThatWasNotReceived() {
        var l = TurnLatency()
        l.userFinished(at: 1)
        XCTAssertNil(l.audible(at: 1.5), "no reply audio arrived for this turn (sound off, or a text reply)")
        l.replyByte(at: 1.6)
        XCTAssertNil(l.audible(at: 1.55), "played before it arrived: a sample of an earlier reply")
        XCTAssertEqual(l.audible(at: 1.7), 700)
    }

    func testReadingsFromBeforeTheEndOfSpeechAreIgnored() {
        var l = TurnLatency()
        l.userFinished(at: 5)
        XCTAssertNil(l.transcript(at: 4.9))
        XCTAssertNil(l.replyByte(at: 4.95))
        XCTAssertTrue(l.toTranscript.isEmpty && l.toReplyByte.isEmpty, "never a negative latency")
        XCTAssertEqual(l.replyByte(at: 5.4) ?? -1, 400, accuracy: 1e-6)
    }

    func testATurnWithNoReplyYetStaysOpenAcrossACompletion() {
        var l = TurnLatency()
        l.userFinished(at: 2)
        XCTAssertNil(l.turnCompleted(), "the completion of a reply cut off before this turn, or of a tool call")
        XCTAssertEqual(l.transcript(at: 2.5) ?? -1, 500, accuracy: 1e-6)
    }

    func testAResentQuestionIsTimedFromTheResend() {
        var l = TurnLatency()
        l.userFinished(at: 1)
        l.resent(at: 31)
        XCTAssertEqual(l.transcript(at: 31.3) ?? -1, 300, accuracy: 1e-6, "the outage is not the reply's latency")
        l.resent(at: 40)
        XCTAssertEqual(l.current?.endOfSpeech, 31, "a turn already answered keeps its clock")
    }

    func testForgottenTurnsTimeNothing() {
        var l = TurnLatency()
        l.userFinished(at: 1)
        l.forget()
        XCTAssertNil(l.transcript(at: 2))
        XCTAssertNil(l.replyByte(at: 2))
        XCTAssertNil(l.audible(at: 2))
        XCTAssertEqual(l.summary.map(\.count), [0, 0, 0])
    }

    func testSummaryAndStatsGiveLastAndPercentilesPerStage() {
        var l = TurnLatency()
        for (i, ms) in [300.0, 100, 200].enumerated() {
            let t = Double(i * 10)
            l.userFinished(at: t)
            l.transcript(at: t + ms / 1000)
            l.replyByte(at: t + ms / 1000 + 0.05)
            l.turnCompleted()
        }
        let text = l.summary[0]
        XCTAssertEqual(text.stage, .firstText)
        XCTAssertEqual(text.count, 3)
        XCTAssertEqual(text.last ?? 0, 200, accuracy: 1e-6)
        XCTAssertEqual(text.p50 ?? 0, 200, accuracy: 1e-6)
        XCTAssertEqual(text.p95 ?? 0, 300, accuracy: 1e-6)
        let stats = l.stats
        XCTAssertEqual(stats.stages.map(\.title), ["first words on screen", "first reply audio received", "first sound played"])
        XCTAssertEqual(stats.stages[1].p50Ms, 250)
        XCTAssertEqual(stats.stages[1].lastMs, 250)
        XCTAssertEqual(stats.stages[2], LatencyStats.Stage(title: "first sound played", explanation: TurnLatency.Stage.firstAudible.explanation, count: 0))
    }
}
