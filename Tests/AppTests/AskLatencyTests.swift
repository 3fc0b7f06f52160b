import Foundation
import Live
import LiveSimulator
import ParleyTesting
import PulseAudio
import XCTest

@testable import App

/// `AskLatency` on a clock the test moves.
final class AskLatencyTests: XCTestCase {
    func testTheTurnLineAndSummaryFollowTheStagesInOrder() throws {
        let time = ManualTime(100)
        let l = AskLatency(clock: time.source)
        l.asked()
        time.advance(0.25)
        l.replyAudio()
        time.advance(0.05)
        XCTAssertNil(l.take(.outputTranscription("Hi", finished: false)))
        time.advance(1)
        XCTAssertEqual(l.take(.turnComplete(reason: nil)), #"{"event":"latency","firstAudibleMs":null,"firstAudioMs":250,"firstTextMs":300}"#)
        XCTAssertNil(l.take(.turnComplete(reason: nil)), "one line per turn")
        XCTAssertEqual(l.summaryLine, #"{"event":"latencySummary","firstAudible":{"p50Ms":null,"p95Ms":null,"turns":0},"#
            + #""firstAudio":{"p50Ms":250,"p95Ms":250,"turns":1},"firstText":{"p50Ms":300,"p95Ms":300,"turns":1}}"#)
    }

    func testAQuestionAskedAgainIsTimedFromTheResend() {
        let time = ManualTime(0)
        let l = AskLatency(clock: time.source)
        l.asked()
        time.advance(20)
        l.asked(again: true)
        time.advance(0.4)
        _ = l.take(.modelText("Paris"))
        XCTAssertEqual(l.take(.turnComplete(reason: nil)), #"{"event":"latency","firstAudibleMs":null,"firstAudioMs":null,"firstTextMs":400}"#)
    }

    func testAnUnansweredTurnPrintsNoLine() {
        let l = AskLatency(clock: ManualTime(0).source)
        l.asked()
        XCTAssertNil(l.take(.turnComplete(reason: nil)))
        XCTAssertTrue(l.summaryLine.contains(#""firstText":{"p50Ms":null,"p95Ms":null,"turns":0}"#), l.summaryLine)
    }
}
