import Live
import TUI
import XCTest

@testable import App
@testable import Conversation

/// The latency stages as the reducer feeds them, and the stats overlay.
extension ReducerTests {
    /// A push-to-talk turn: Space tapped at `from` and again at `to` (the end of speech).
    func spokenTurn(_ from: Double, _ to: Double) {
        key(space, at: from)
        key(space, at: to)
    }

    func testTheHeaderShowsFirstSoundOnceTheTurnHasOne() {
        live()
        spokenTurn(1, 3)
        on(.replyAudioStarted(at: 3.42))
        XCTAssertEqual(s.ui.header.latencyMs, 420, "first reply audio until something is heard")
        on(.replyAudible(at: 3.55))
        XCTAssertEqual(s.ui.header.latencyMs, 550)
        on(.replyAudible(at: 3.9))
        XCTAssertEqual(s.latency.toAudible.map { Int($0.rounded()) }, [550], "one first sample per turn")
        XCTAssertEqual(s.ui.header.latencyMs, 550)
    }

    func testTheFirstSoundOfAReplyCountsAfterItsTurnCompleted() {
        live()
        spokenTurn(1, 2)
        on(.live(.outputTranscription("Sure", finished: false)), at: 2.3)
        on(.replyAudioStarted(at: 2.35))
        on(.live(.turnComplete(reason: nil)), at: 2.4)
        on(.replyAudible(at: 2.5))
        XCTAssertEqual(s.latency.summary.map(\.count), [1, 1, 1])
        XCTAssertEqual(s.latency.toAudible.first ?? 0, 500, accuracy: 1e-6)
    }

    func testBargeInBeforeAnyReplyLeavesThatTurnUntimed() {
        live()
        spokenTurn(1, 2)
        key(space, at: 2.2)
        on(.replyAudioStarted(at: 2.3))
        on(.replyAudible(at: 2.4))
        XCTAssertTrue(s.latency.toReplyByte.isEmpty, "the user talked again: the first turn was never answered")
        key(space, at: 4)
        on(.live(.outputTranscription("ok", finished: false)), at: 4.3)
        on(.replyAudioStarted(at: 4.35))
        on(.replyAudible(at: 4.45))
        XCTAssertEqual(s.latency.summary.map(\.count), [1, 1, 1])
        XCTAssertEqual(s.latency.toTranscript.first ?? 0, 300, accuracy: 1e-6)
        XCTAssertEqual(s.ui.header.latencyMs, 450)
    }

    func testATypedTurnOverAReplyIsTimedFromItsOwnAnswer() {
        live()
        spokenTurn(1, 2)
        on(.live(.outputTranscription("A long", finished: false)), at: 2.4)
        on(.replyAudioStarted(at: 2.5))
        s.ui.input = LineEditor(text: "stop")
        key(KeyEvent(.enter), at: 5)
        XCTAssertEqual(s.talk.reply, .discarding)
        on(.replyAudioStarted(at: 5.1))
        on(.live(.outputTranscription(" answer", finished: false)), at: 5.15)
        on(.live(.interrupted), at: 5.2)
        on(.live(.turnComplete(reason: nil)), at: 5.2)
        XCTAssertEqual(s.latency.summary.map(\.count), [1, 1, 0], "the cut reply's tail is not the typed turn's answer")
        on(.live(.outputTranscription("Stopped.", finished: false)), at: 5.6)
        on(.replyAudioStarted(at: 5.7))
        on(.replyAudible(at: 5.8))
        XCTAssertEqual(s.latency.toTranscript.map { Int($0.rounded()) }, [400, 600])
        XCTAssertEqual(s.latency.toReplyByte.map { Int($0.rounded()) }, [500, 700])
        XCTAssertEqual(s.latency.toAudible.map { Int($0.rounded()) }, [800])
    }

    func testATextOnlyReplyTimesTheFirstWordsOnly() {
        live()
        s.ui.input = LineEditor(text: "hello")
        key(KeyEvent(.enter), at: 1)
        on(.live(.modelText("Hi there")), at: 1.25)
        on(.live(.turnComplete(reason: nil)), at: 1.3)
        on(.replyAudioStarted(at: 8))
        on(.replyAudible(at: 8.1))
        XCTAssertEqual(s.latency.summary.map(\.count), [1, 0, 0], "audio the model sends later on its own is not this turn's")
        XCTAssertNil(s.ui.header.latencyMs)
    }

    func testAQueuedMessageIsTimedFromWhenItIsSent() {
        live()
        on(.live(.reconnecting(attempt: 1, delay: 4, after: .dropped())), at: 10)
        s.ui.input = LineEditor(text: "are you back")
        key(KeyEvent(.enter), at: 11)
        on(.live(.textQueued(id: 1, text: "are you back", waiting: 1)), at: 11)
        on(.live(.setupComplete(resumed: true)), at: 40)
        on(.live(.queuedTextSent(ids: [1])), at: 40)
        on(.live(.outputTranscription("Yes", finished: false)), at: 40.5)
        XCTAssertEqual(s.latency.toTranscript.map { Int($0.rounded()) }, [500], "the outage is not the reply's latency")
    }

    func testAFailedConnectionTimesNothingMore() {
        live()
        spokenTurn(1, 2)
        on(.live(.failed(CloseReason(code: 1008, reason: "policy"))), at: 3)
        on(.replyAudioStarted(at: 3.1))
        XCTAssertTrue(s.latency.toReplyByte.isEmpty)
    }

    // MARK: the stats overlay

    func testLOpensTheLatencyStatsWhichFollowTheTurnsUntilLOrEscCloses() {
        live()
        key(.char("L"))
        guard case .latencyStats(let empty)? = s.ui.overlay else { return XCTFail("no stats overlay") }
        XCTAssertEqual(empty.stages.map(\.count), [0, 0, 0])
        s.latency.userFinished(at: 1)
        on(.live(.outputTranscription("Hi", finished: false)), at: 1.3)
        guard case .latencyStats(let one)? = s.ui.overlay else { return XCTFail("the overlay closed") }
        XCTAssertEqual(one.stages[0].count, 1)
        XCTAssertEqual(one.stages[0].p50Ms, 300)
        key(.char("x"))
        XCTAssertNotNil(s.ui.overlay, "other keys leave it open")
        key(.char("L"))
        XCTAssertNil(s.ui.overlay)
        key(.char("L"))
        key(KeyEvent(.escape))
        XCTAssertNil(s.ui.overlay)
    }

    func testTheLatencyStatsKeyCanBeRemapped() throws {
        s.keyMap = try KeyMap.default.overriding(["latencyStats": ["F3"]]).get()
        key(.char("L"))
        XCTAssertNil(s.ui.overlay)
        key(KeyEvent(.function(3)))
        guard case .latencyStats? = s.ui.overlay else { return XCTFail("F3 does not open the stats") }
        key(KeyEvent(.function(3)))
        XCTAssertNil(s.ui.overlay)
    }
}
