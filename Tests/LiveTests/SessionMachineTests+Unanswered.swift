import Foundation
import XCTest

@testable import Live

/// Every unanswered turn is kept, in order, and sent again once on the next connection, one per answer; a
/// typed turn waits behind one not answered yet (one question, one answer); the watchdog measures from the
/// oldest. What the hour's soak lost 32 turns to: a frozen server, turns typed every 5 s, only the last one
/// kept and sent again, and the watchdog pushed back by each new turn.
extension SessionMachineTests {
    /// The wire of one connection, from actions gathered over several inputs.
    func sends(_ actions: [Action], on id: Int) -> [ClientMessage] {
        sent(actions, on: id).filter { if case .setup = $0 { false } else { true } }
    }

    /// Answers the turn on the wire and ends the model's turn; returns what that did.
    func answer(_ text: String, on id: Int) -> [Action] {
        server(ServerContent(outputTranscription: Transcription(text: text)), on: id)
            + server(ServerContent(turnComplete: true), on: id)
    }

    func testAFrozenServerGetsEveryTurnAgainInOrderOnceEachAfterTheHandOver() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let asked = now
        var onFirst = on(.text("soak turn 1"))
        now += 5
        let second = on(.text("soak turn 2"))
        XCTAssertEqual(events(second), [.textQueued(id: 2, text: "soak turn 2", waiting: 1)], "behind the unanswered turn")
        onFirst += second
        now += 5
        onFirst += on(.text("soak turn 3"))
        XCTAssertEqual(timer, asked + 12, "measured from the first turn, not pushed back by the later ones")

        let nudge = fireTimer()
        XCTAssertEqual(now, asked + 12)
        XCTAssertEqual(events(nudge), [.replyStalled(.noReply(seconds: 12), recovery: .nudge)])
        onFirst += nudge
        XCTAssertEqual(sends(onFirst, on: first), [typed("soak turn 1"), typed("soak turn 1")], "asked, then nudged; the others wait")
        let resume = fireTimer()
        XCTAssertEqual(now, asked + 24)
        XCTAssertEqual(events(resume).first, .replyStalled(.noReply(seconds: 12), recovery: .resume))

        // The hand-over: the new connection gets the turns one per answer, in order, each once.
        let (next, live) = goLive(resume)
        XCTAssertEqual(events(live), [.setupComplete(resumed: true), .turnResent(text: "soak turn 1")])
        var wire = live
        wire += answer("You said soak turn 1.", on: next)
        wire += answer("You said soak turn 2.", on: next)
        wire += answer("You said soak turn 3.", on: next)
        XCTAssertEqual(sends(wire, on: next), [typed("soak turn 1"), typed("soak turn 2"), typed("soak turn 3")])
        XCTAssertEqual(events(wire).filter { if case .queuedTextSent = $0 { true } else { false } },
                       [.queuedTextSent(ids: [2]), .queuedTextSent(ids: [3])])
        XCTAssertEqual(m.pending, [])
        XCTAssertNil(timer, "everything answered: nothing due")
        XCTAssertEqual(m.log.contents.filter { $0.role == "user" }.map(\.text), ["soak turn 1", "soak turn 2", "soak turn 3"],
                       "each once in the conversation that seeds a fresh session")
    }

    /// A typed and a spoken turn both on the wire when the connection drops: both are kept and sent again, in
    /// the order they went out, the second after the first one's answer.
    func testTurnsOnTheWireWhenTheConnectionDropsAreSentAgainInOrderOnePerAnswer() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        let asked = now
        on(.text("what is the capital of France"))
        now += 3
        let chunks = [mic(640, 1000), mic(640, 2000)]
        on(.activityStart)
        for c in chunks { on(.audio(c)) }
        on(.activityEnd)
        XCTAssertEqual(timer, asked + 12, "the spoken turn does not push the deadline back")
        XCTAssertEqual(m.pending.count, 2)

        on(.closed(connection: first, .dropped()))
        let (next, live) = goLive(fireTimer())
        XCTAssertEqual(sends(live, on: next), [typed("what is the capital of France")])
        XCTAssertEqual(events(live).last, .turnResent(text: "what is the capital of France"))
        let afterFirst = answer("Paris.", on: next)
        XCTAssertEqual(sends(afterFirst, on: next),
                       [.realtimeInput(.activityStart)] + chunks.map(audio) + [.realtimeInput(.activityEnd)])
        XCTAssertEqual(events(afterFirst).last, .turnResent(text: nil))
        let afterSecond = answer("Noon.", on: next)
        XCTAssertEqual(sends(afterSecond, on: next), [], "each sent again once")
        XCTAssertEqual(m.pending, [])
    }

    /// On a live connection, a turn typed before the last one has any answer waits for that answer, then goes
    /// out at the end of the reply: a server reading two turns back to back answers only the second.
    func testATurnTypedBeforeTheLastOneIsAnsweredWaitsForTheAnswer() {
        let (id, _) = goLive(on(.start))
        XCTAssertEqual(sends(on(.text("one")), on: id), [typed("one")])
        let two = on(.text("two"))
        XCTAssertEqual(sends(two, on: id), [])
        XCTAssertEqual(events(two), [.textQueued(id: 2, text: "two", waiting: 1)])
        let reply = server(ServerContent(outputTranscription: Transcription(text: "First.")), on: id)
        XCTAssertEqual(sends(reply, on: id), [], "the reply to the first is still streaming")
        let end = server(ServerContent(turnComplete: true), on: id)
        XCTAssertEqual(sends(end, on: id), [typed("two")])
        XCTAssertEqual(events(end).last, .queuedTextSent(ids: [2]))
        // Once the model answers, a new turn goes out at once (and interrupts the reply, as before).
        server(ServerContent(outputTranscription: Transcription(text: "Second")), on: id)
        XCTAssertEqual(sends(on(.text("three")), on: id), [typed("three")])
    }

    /// A turn waiting through a planned hand-over is sent again on the new connection, and the watchdog
    /// measures from that send: with the old clock it fired 2 s after the resend and sent the turn a third
    /// time while the new connection was still answering it.
    func testAHandOverStartsTheWatchdogAgainFromTheResend() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        on(.text("what is the time"))
        now += 10
        let handover = server(ServerMessage(goAway: GoAway(timeLeft: "0s")), on: first)
        now += 0.5
        let resentAt = now
        let (next, live) = goLive(handover)
        XCTAssertEqual(sends(live, on: next), [typed("what is the time")])
        XCTAssertEqual(timer, resentAt + 12, "a full reply timeout from the resend")
        XCTAssertEqual(on(.closed(connection: first, .normal)), [])
        let stalled = fireTimer()
        XCTAssertEqual(now, resentAt + 12)
        XCTAssertEqual(events(stalled), [.replyStalled(.noReply(seconds: 12), recovery: .nudge)])
    }
}

extension SessionMachineTests {
    /// A reply cut by a dropped connection does not answer its turn: the server's handle is not resumable
    /// during generation, so the resumed session predates the turn. The hour's soak lost turn 497 this way (its
    /// reply stopped at "You said:", the next question went out instead and was answered as if 497 never was).
    func testATurnWhoseReplyIsCutByADropIsSentAgainBeforeTheNextOne() {
        let (first, _) = goLive(on(.start))
        handleUpdate(on: first)
        XCTAssertEqual(sends(on(.text("soak turn 497")), on: first), [typed("soak turn 497")])
        XCTAssertEqual(sends(on(.text("soak turn 498")), on: first), [], "behind the unanswered turn")
        server(ServerContent(outputTranscription: Transcription(text: "You said:")), on: first)

        on(.closed(connection: first, .dropped()))
        let (next, live) = goLive(fireTimer())
        XCTAssertEqual(sends(live, on: next), [typed("soak turn 497")], "the cut turn first, alone")
        XCTAssertEqual(events(live).last, .turnResent(text: "soak turn 497"))
        XCTAssertEqual(sends(answer("You said soak turn 497.", on: next), on: next), [typed("soak turn 498")])
        _ = answer("You said soak turn 498.", on: next)
        XCTAssertEqual(m.pending, [])
        XCTAssertEqual(m.log.contents.filter { $0.role == "user" }.map(\.text), ["soak turn 497", "soak turn 498"],
                       "each once in the conversation that seeds a fresh session")

        // A reply that ended is an answer: a drop after it sends nothing again.
        on(.closed(connection: next, .dropped()))
        let (third, again) = goLive(fireTimer())
        XCTAssertEqual(sends(again, on: third), [])
    }
}
