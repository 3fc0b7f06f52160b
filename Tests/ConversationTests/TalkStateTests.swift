@testable import Conversation
import XCTest

/// `TalkState`'s reply and mode rules, through the methods the reducer calls.
final class TalkStateTests: XCTestCase {
    func testACutReplyStaysCutUntilTheTurnEnds() {
        var talk = TalkState(mode: .ptt, kitty: false)
        XCTAssertFalse(talk.cutReply(), "nothing to cut while idle")
        talk.replyStarted()
        XCTAssertEqual(talk.reply, .responding)
        XCTAssertTrue(talk.cutReply())
        talk.replyStarted()
        talk.replyInterrupted()
        XCTAssertEqual(talk.reply, .discarding, "its tail is still dropped")
        talk.replyEnded()
        XCTAssertEqual(talk.reply, .idle)
    }

    func testAModeSwitchWaitsForTheNextConnection() {
        var talk = TalkState(mode: .ptt, kitty: false)
        XCTAssertNil(talk.applyPendingMode())
        talk.requestMode(.open)
        XCTAssertEqual(talk.mode, .ptt)
        XCTAssertEqual(talk.applyPendingMode(), .open)
        XCTAssertEqual(talk.mode, .open)
        XCTAssertNil(talk.pendingMode)
    }

    func testUnmutingOpensNothingByItself() {
        var talk = TalkState(mode: .open, kitty: false)
        _ = talk.closeMic(now: 0, muted: true)
        XCTAssertTrue(talk.isMuted)
        talk.unmute()
        XCTAssertEqual(talk.mic, .closed)
    }
}
