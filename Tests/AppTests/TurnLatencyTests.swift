import XCTest

@testable import App

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
