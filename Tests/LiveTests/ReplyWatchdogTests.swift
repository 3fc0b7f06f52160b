import Foundation
import Live
import XCTest

final class ReplyWatchdogTests: XCTestCase {
    func pcm(seconds: Double, amplitude: Int16) -> Data {
        let n = Int(seconds * 24_000)
        return (0..<n).map { i in i % 2 == 0 ? amplitude : -amplitude }.withUnsafeBytes { Data($0) }
    }

    func testNoReplyIsNudgedThenResumed() {
        var w = ReplyWatchdog()
        w.expectReply(now: 100)
        XCTAssertEqual(w.nextDeadline, 112)
        XCTAssertNil(w.tick(now: 111.9))
        XCTAssertEqual(w.tick(now: 112)?.1, .nudge)
        XCTAssertNil(w.tick(now: 120))
        guard let (finding, recovery) = w.tick(now: 124) else { return XCTFail() }
        XCTAssertEqual(finding, .noReply(seconds: 12))
        XCTAssertEqual(recovery, .resume)
        XCTAssertNil(w.nextDeadline, "the turn sent again re-arms it")
    }

    func testAReplyDisarmsIt() {
        var w = ReplyWatchdog()
        w.expectReply(now: 0)
        XCTAssertEqual(w.replyAudio(pcm(seconds: 0.1, amplitude: 3000), now: 1), .audible)
        XCTAssertNil(w.tick(now: 30))
        w.expectReply(now: 40)
        w.replied()
        XCTAssertNil(w.nextDeadline)
    }

    func testNearSilentReplyAudioIsAStall() {
        var w = ReplyWatchdog()
        w.expectReply(now: 0)
        var verdicts: [ReplyWatchdog.AudioVerdict] = []
        for i in 0..<40 { verdicts.append(w.replyAudio(pcm(seconds: 0.1, amplitude: 20), now: Double(i) * 0.025)) }
        XCTAssertEqual(verdicts.prefix(29).filter { $0 != .quiet }, [], "-64 dBFS is near silence")
        guard case .stalled(.quietReply(let s), .nudge)? = verdicts.first(where: { $0 != .quiet }) else { return XCTFail("\(verdicts)") }
        XCTAssertGreaterThan(s, 3)
        XCTAssertEqual(w.replyAudio(pcm(seconds: 0.1, amplitude: 40), now: 2), .audible, "-58 dBFS is sound")
    }

}
