@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// A turn the session sends again after a dropped connection is one question: one record, one line on screen,
/// once in `parley export`, with the resend as a note on it.
extension ReducerTests {
    /// The transcript records in these effects.
    func records(_ fx: [Effect]) -> [TranscriptRecord] {
        fx.compactMap { if case .record(let r) = $0 { r } else { nil } }
    }

    func userRecords(_ fx: [Effect]) -> [String] {
        records(fx).filter { $0.kind == .user }.compactMap(\.said?.text)
    }

    /// The questions of the `resent` records in these effects (nil when the text was not known).
    func resentQuestions(_ fx: [Effect]) -> [String?] {
        records(fx).compactMap { if case .resent(let q) = $0.entry { q } else { nil } }
    }

    /// What the soak saw 19 times in 20 minutes: a typed turn echoed, the connection dropped before the answer,
    /// the turn sent again on the next connection and echoed again, then answered.
    func testATypedTurnSentAgainAfterADropIsSavedAndExportedOnce() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 13")
        fx += key(KeyEvent(.enter), at: 1)
        fx += on(.live(.inputTranscription("soak turn ", finished: false)), at: 1.1)
        fx += on(.live(.inputTranscription("13", finished: false)), at: 1.1)
        fx += on(.live(.inputTranscription("", finished: true)), at: 1.1)
        fx += on(.live(.connectionClosed(.dropped())), at: 1.2)
        fx += on(.live(.reconnecting(attempt: 1, delay: 0.5, after: .dropped())), at: 1.2)
        fx += on(.live(.connecting(attempt: 2, resuming: true)), at: 1.7)
        fx += on(.live(.setupComplete(resumed: true)), at: 1.8)
        fx += on(.live(.turnResent(text: "soak turn 13")), at: 1.8)
        fx += on(.live(.inputTranscription("soak turn 13", finished: false)), at: 1.9)
        fx += on(.live(.inputTranscription("", finished: true)), at: 1.9)
        fx += on(.live(.outputTranscription("You said soak turn 13.", finished: true)), at: 2.1)
        fx += on(.live(.turnComplete(reason: nil)), at: 2.2)

        XCTAssertEqual(userRecords(fx), ["soak turn 13"])
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["soak turn 13"])
        XCTAssertEqual(resentQuestions(fx), ["soak turn 13"], "the resend is a note on the question")
        let markdown = TranscriptStore.markdown(records(fx), title: "soak")
        XCTAssertEqual(markdown.components(separatedBy: "**You:** soak turn 13").count - 1, 1, markdown)
        XCTAssertTrue(markdown.contains("sent again"), markdown)
        XCTAssertEqual(markdown.components(separatedBy: "**Gemini:** You said soak turn 13.").count - 1, 1)
    }

    /// A spoken turn sent again: the service transcribes the same audio a second time.
    func testASpokenTurnSentAgainAfterADropIsSavedOnce() {
        live()
        var fx: [Effect] = []
        fx += key(space, at: 1)
        fx += on(.live(.inputTranscription("what time", finished: false)), at: 1.5)
        fx += key(space, at: 2)
        fx += on(.live(.inputTranscription(" is it", finished: true)), at: 2.1)
        fx += on(.live(.connectionClosed(.dropped())), at: 2.2)
        fx += on(.live(.reconnecting(attempt: 1, delay: 0.5, after: .dropped())), at: 2.2)
        fx += on(.live(.setupComplete(resumed: true)), at: 2.8)
        fx += on(.live(.turnResent(text: nil)), at: 2.8)
        fx += on(.live(.inputTranscription("What time is it?", finished: true)), at: 3)
        fx += on(.live(.outputTranscription("Noon.", finished: true)), at: 3.2)
        fx += on(.live(.turnComplete(reason: nil)), at: 3.3)
        XCTAssertEqual(userRecords(fx), ["what time is it"])
        XCTAssertEqual(lines.filter { $0.0 == .user }.count, 1)
    }

    /// The connection dropped while the spoken turn was still being transcribed: the transcription of the
    /// audio sent again replaces the partial one rather than running on after it.
    func testASpokenTurnCutMidTranscriptionIsTranscribedOnceWhenSentAgain() {
        live()
        var fx: [Effect] = []
        fx += key(space, at: 1)
        fx += on(.live(.inputTranscription("what time", finished: false)), at: 1.5)
        fx += key(space, at: 2)
        fx += on(.live(.connectionClosed(.dropped())), at: 2.1)
        fx += on(.live(.reconnecting(attempt: 1, delay: 0.5, after: .dropped())), at: 2.1)
        fx += on(.live(.setupComplete(resumed: true)), at: 2.8)
        fx += on(.live(.turnResent(text: nil)), at: 2.8)
        fx += on(.live(.inputTranscription("what time", finished: false)), at: 3)
        fx += on(.live(.inputTranscription(" is it", finished: true)), at: 3.1)
        fx += on(.live(.outputTranscription("Noon.", finished: true)), at: 3.2)
        XCTAssertEqual(userRecords(fx), ["what time is it"])
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["what time is it"])
    }

    /// Two messages typed while offline go out one at a time when the connection is back; each one's echo
    /// arrives when it is sent, not when it was typed.
    func testMessagesQueuedOfflineAreSavedOnceWhenTheirEchoesArrive() {
        live()
        var fx: [Effect] = []
        fx += on(.live(.reconnecting(attempt: 1, delay: 4, after: .dropped())), at: 10)
        for (id, text) in [(1, "first question"), (2, "second question")] {
            s.ui.input = LineEditor(text: text)
            fx += key(KeyEvent(.enter), at: 11)
            fx += on(.live(.textQueued(id: id, text: text, waiting: id)), at: 11)
        }
        fx += on(.live(.setupComplete(resumed: true)), at: 20)
        for (id, text) in [(1, "first question"), (2, "second question")] {
            fx += on(.live(.queuedTextSent(ids: [id])), at: 20)
            fx += on(.live(.inputTranscription(text, finished: true)), at: 20.1)
            fx += on(.live(.outputTranscription("Answer \(id).", finished: true)), at: 20.2)
            fx += on(.live(.turnComplete(reason: nil)), at: 20.3)
        }
        XCTAssertEqual(userRecords(fx), ["first question", "second question"])
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["first question", "second question"])
    }

    /// A turn typed while the last one has no answer yet waits in the session's queue (the server is silent);
    /// the earlier turn's echo is still absorbed, the connection drops, the earlier turn is sent again and
    /// the waiting one follows its answer: each question one record, the resend a note on the right one.
    func testATurnQueuedBehindAnUnansweredOneIsSavedOnceAndTheEarlierEchoAbsorbed() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 1")
        fx += key(KeyEvent(.enter), at: 1)
        s.ui.input = LineEditor(text: "soak turn 2")
        fx += key(KeyEvent(.enter), at: 6)
        fx += on(.live(.textQueued(id: 2, text: "soak turn 2", waiting: 1)), at: 6)
        XCTAssertTrue(lines.contains { $0.1.hasPrefix("queued (1 waiting) — sent once the last question has its answer") },
                      "online: not called offline: \(lines)")
        fx += on(.live(.inputTranscription("soak turn 1", finished: true)), at: 7)
        fx += on(.live(.connectionClosed(.dropped())), at: 8)
        fx += on(.live(.reconnecting(attempt: 1, delay: 0.5, after: .dropped())), at: 8)
        fx += on(.live(.setupComplete(resumed: true)), at: 9)
        fx += on(.live(.turnResent(text: "soak turn 1")), at: 9)
        fx += on(.live(.inputTranscription("soak turn 1", finished: true)), at: 9.1)
        fx += on(.live(.outputTranscription("You said soak turn 1.", finished: true)), at: 9.2)
        fx += on(.live(.turnComplete(reason: nil)), at: 9.3)
        fx += on(.live(.queuedTextSent(ids: [2])), at: 9.3)
        fx += on(.live(.inputTranscription("soak turn 2", finished: true)), at: 9.4)
        fx += on(.live(.outputTranscription("You said soak turn 2.", finished: true)), at: 9.5)
        fx += on(.live(.turnComplete(reason: nil)), at: 9.6)
        XCTAssertEqual(userRecords(fx), ["soak turn 1", "soak turn 2"])
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["soak turn 1", "soak turn 2"])
        XCTAssertEqual(resentQuestions(fx), ["soak turn 1"])
    }

    /// What the hour's soak saw after a silence: the watchdog asked the turn again on the same connection, and
    /// the server, back, echoed it twice (once per copy). Both echoes are absorbed: one question, one record.
    func testATurnNudgedByTheWatchdogIsSavedOnceWhenBothEchoesArrive() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 81")
        fx += key(KeyEvent(.enter), at: 1)
        fx += on(.live(.replyStalled(.noReply(seconds: 12), recovery: .nudge)), at: 13)
        for t in [20.0, 20.1] { fx += on(.live(.inputTranscription("soak turn 81", finished: true)), at: t) }
        fx += on(.live(.outputTranscription("You said soak turn 81.", finished: true)), at: 20.3)
        fx += on(.live(.turnComplete(reason: nil)), at: 20.4)
        XCTAssertEqual(userRecords(fx), ["soak turn 81"])
        // The nudge after the first echo came: the second is absorbed too.
        s.ui.input = LineEditor(text: "soak turn 82")
        fx = key(KeyEvent(.enter), at: 30)
        fx += on(.live(.inputTranscription("soak turn 82", finished: true)), at: 30.1)
        fx += on(.live(.replyStalled(.noReply(seconds: 12), recovery: .nudge)), at: 42)
        fx += on(.live(.inputTranscription("soak turn 82", finished: true)), at: 42.1)
        fx += on(.live(.inputTranscription("and something else", finished: true)), at: 43)
        XCTAssertEqual(userRecords(fx), ["soak turn 82", "and something else"])
    }

    /// While turns wait in the session's queue, a new one waits behind them: the reply in progress (to an
    /// earlier queued turn) is not cut, shown or saved as interrupted.
    func testATurnTypedBehindQueuedOnesDoesNotCutTheReplyInProgress() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 1")
        fx += key(KeyEvent(.enter), at: 1)
        s.ui.input = LineEditor(text: "soak turn 2")
        fx += key(KeyEvent(.enter), at: 2)
        fx += on(.live(.textQueued(id: 2, text: "soak turn 2", waiting: 1)), at: 2)
        fx += on(.live(.outputTranscription("You said", finished: false)), at: 3)
        s.ui.input = LineEditor(text: "soak turn 3")
        fx += key(KeyEvent(.enter), at: 3.2)
        fx += on(.live(.textQueued(id: 3, text: "soak turn 3", waiting: 2)), at: 3.2)
        fx += on(.live(.outputTranscription(" soak turn 1.", finished: false)), at: 3.4)
        fx += on(.live(.turnComplete(reason: nil)), at: 3.5)
        fx += on(.live(.queuedTextSent(ids: [2])), at: 3.5)
        fx += on(.live(.inputTranscription("soak turn 2", finished: true)), at: 3.6)
        fx += on(.live(.outputTranscription("You said soak turn 2.", finished: false)), at: 3.8)
        fx += on(.live(.turnComplete(reason: nil)), at: 4)
        let models = records(fx).filter { $0.kind == .model }
        XCTAssertEqual(models.map(\.said?.text), ["You said soak turn 1.", "You said soak turn 2."])
        XCTAssertEqual(models.map { $0.said?.interrupted == true }, [false, false], "nothing was cut")
        XCTAssertEqual(userRecords(fx), ["soak turn 1", "soak turn 2", "soak turn 3"])
        // The transcript keeps them as typed; a session seeded from it gets them as the model had them: each
        // waiting question after the answer it waited for (soak turn 3 was never sent: it stays at the end).
        let seed = ResumeSeed(records(fx), model: "gemini-3.8-live").turns.map { "\($0.role ?? "?"): \($0.text)" }
        XCTAssertEqual(seed, ["user: soak turn 1", "model: You said soak turn 1.", "user: soak turn 2",
                              "model: You said soak turn 2.", "user: soak turn 3"])
    }

    /// What the soak saw when a drop cut a reply: the reply's rest never came, and the answer to the next
    /// question ran on in the same record. The cut reply is closed as interrupted; the next is its own record.
    func testAReplyCutByADroppedConnectionIsItsOwnRecord() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 52")
        fx += key(KeyEvent(.enter), at: 1)
        fx += on(.live(.outputTranscription("You said: soak turn 52. That's", finished: false)), at: 1.5)
        fx += on(.live(.connectionClosed(.dropped())), at: 2)
        fx += on(.live(.reconnecting(attempt: 1, delay: 0.1, after: .dropped())), at: 2)
        fx += on(.live(.setupComplete(resumed: true)), at: 2.2)
        fx += on(.live(.queuedTextSent(ids: [])), at: 2.2)
        s.ui.input = LineEditor(text: "soak turn 53")
        fx += key(KeyEvent(.enter), at: 3)
        fx += on(.live(.outputTranscription("You said: soak turn 53.", finished: false)), at: 3.5)
        fx += on(.live(.turnComplete(reason: nil)), at: 4)
        let models = records(fx).filter { $0.kind == .model }
        XCTAssertEqual(models.map(\.said?.text), ["You said: soak turn 52. That's", "You said: soak turn 53."])
        XCTAssertEqual(models.map { $0.said?.interrupted == true }, [true, false])
    }

    /// Typed just as the reply to the turn before began (the session saw the reply first and sent the new turn
    /// at once, cutting it): the output before the new turn's echo is the earlier reply, and the echo that
    /// follows the cut is absorbed: one record per question.
    func testATurnTypedAsTheEarlierReplyBeginsIsSavedOnce() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "soak turn 56")
        fx += key(KeyEvent(.enter), at: 1)
        fx += on(.live(.inputTranscription("soak turn 56", finished: true)), at: 1.1)
        s.ui.input = LineEditor(text: "soak turn 57")
        fx += key(KeyEvent(.enter), at: 2)
        fx += on(.live(.outputTranscription("You said:", finished: false)), at: 2.05)
        fx += on(.live(.interrupted), at: 2.1)
        fx += on(.live(.turnComplete(reason: nil)), at: 2.1)
        fx += on(.live(.inputTranscription("soak turn 57", finished: true)), at: 2.2)
        fx += on(.live(.outputTranscription("You said: soak turn 57.", finished: false)), at: 2.5)
        fx += on(.live(.turnComplete(reason: nil)), at: 3)
        XCTAssertEqual(userRecords(fx), ["soak turn 56", "soak turn 57"])
        let models = records(fx).filter { $0.kind == .model }
        XCTAssertEqual(models.map(\.said?.text), ["You said:", "You said: soak turn 57."])
        XCTAssertEqual(models.map { $0.said?.interrupted == true }, [true, false])
    }

    /// Sending again re-arms the echo only for the turn that was sent again: something else said afterwards
    /// is still a turn of its own.
    func testSpeechAfterAResentTurnIsStillSaved() {
        live()
        var fx: [Effect] = []
        s.ui.input = LineEditor(text: "hello")
        fx += key(KeyEvent(.enter), at: 1)
        fx += on(.live(.inputTranscription("hello", finished: true)), at: 1.1)
        fx += on(.live(.setupComplete(resumed: true)), at: 1.8)
        fx += on(.live(.turnResent(text: "hello")), at: 1.8)
        fx += on(.live(.inputTranscription("what's the weather", finished: true)), at: 2)
        XCTAssertEqual(userRecords(fx), ["hello", "what's the weather"])
    }
}

/// A turn over the model's input window is refused before it is sent, saying how large it is and the limit.
extension ReducerTests {
    func testAPasteOverTheInputWindowIsRefusedBeforeSending() {
        live()
        let paste = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MB
        s.ui.input = LineEditor(text: paste)
        let fx = key(KeyEvent(.enter), at: 1)
        XCTAssertFalse(fx.contains { if case .live(.sendText) = $0 { true } else { false } }, "nothing goes out")
        XCTAssertEqual(userRecords(fx), [], "nor is it saved as a turn")
        let said = lines.last?.1 ?? ""
        XCTAssertEqual(lines.last?.0, .error)
        XCTAssertTrue(said.contains("262144 tokens"), said)
        XCTAssertTrue(said.contains("1.0 MB"), said)
        XCTAssertTrue(said.contains("at most 131072 tokens"), said)
        XCTAssertTrue(said.contains("gemini-3.8-live"), said)
        XCTAssertNil(s.typedTurn)
    }

    func testATurnUnderTheInputWindowIsSent() {
        live()
        let long = String(repeating: "word ", count: 80_000)  // 400 KB, about 100,000 tokens
        s.ui.input = LineEditor(text: long)
        let fx = key(KeyEvent(.enter), at: 1)
        XCTAssertTrue(fx.contains { if case .live(.sendText) = $0 { true } else { false } })
    }

    func testTheLimitIsTheModels() {
        XCTAssertTrue(TurnSize(text: String(repeating: "a", count: 400_000), model: "gemini-3.8-live").fits)
        let legacy = TurnSize(text: String(repeating: "a", count: 400_000), model: "gemini-3.1-flash-live-preview")
        XCTAssertFalse(legacy.fits)
        XCTAssertEqual(legacy.limit, 32_768)
        XCTAssertEqual(legacy.estimatedTokens, 100_000)
        XCTAssertTrue(legacy.refusal?.contains("390 KB") == true, legacy.refusal ?? "")
    }
}

extension ReducerTests {
    func testTheHelpListScrollsOnAShortScreenAndOtherKeysCloseIt() {
        s.ui.screen = Size(rows: 24, columns: 80)
        key(.char("?"))
        XCTAssertEqual(s.ui.overlay, .help(top: 0))
        key(KeyEvent(.down))
        XCTAssertEqual(s.ui.overlay, .help(top: 1))
        key(KeyEvent(.pageDown))
        key(KeyEvent(.pageDown))
        let end = OverlayView.helpMaxTop(keyMap: s.keyMap, screen: s.ui.screen)
        XCTAssertEqual(s.ui.overlay, .help(top: end), "it stops at the end")
        key(KeyEvent(.up))
        XCTAssertEqual(s.ui.overlay, .help(top: end - 1))
        key(.char("x"))
        XCTAssertNil(s.ui.overlay)
    }
}
