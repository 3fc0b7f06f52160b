import XCTest
@testable import PulseAudio

/// The audio thread's hold on the server's data (`PulseMainloop`, `ArrivalEstimate`): the rules,
/// without a server. `PulseDaemonTests.testAnotherRecorderWithShortPiecesDoesNotWakeTheLoopForEachPiece` runs
/// them on a real one.
final class DataHoldTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testAHoldShorterThanTheNextTimerWaitsForTheHoldThenPollsEverythingForTheRest() {
        let hold = PollHold(now: 100 * ms, until: 117 * ms, timeoutMilliseconds: 40)
        XCTAssertEqual(hold.waitNanoseconds, 17 * ms)
        XCTAssertFalse(hold.timerFirst)
        XCTAssertEqual(hold.remainingTimeout(elapsedNanoseconds: 17 * ms + 300_000), 22, "the timer never late")
        XCTAssertEqual(hold.remainingTimeout(elapsedNanoseconds: 60 * ms), 0, "never negative once a timer is due")
    }

    func testATimerDueBeforeTheHoldEndsIsDispatchedFirst() {
        let hold = PollHold(now: 100 * ms, until: 118 * ms, timeoutMilliseconds: 5)
        XCTAssertEqual(hold.waitNanoseconds, 5 * ms)
        XCTAssertTrue(hold.timerFirst)
        let due = PollHold(now: 100 * ms, until: 118 * ms, timeoutMilliseconds: 0)
        XCTAssertEqual(due.waitNanoseconds, 0)
        XCTAssertTrue(due.timerFirst, "a timer already due is not held back")
    }

    func testNoTimerWaitsForTheHoldAndThenForeverOnEverything() {
        let hold = PollHold(now: 100 * ms, until: 112 * ms, timeoutMilliseconds: -1)
        XCTAssertEqual(hold.waitNanoseconds, 12 * ms)
        XCTAssertFalse(hold.timerFirst)
        XCTAssertEqual(hold.remainingTimeout(elapsedNanoseconds: 12 * ms), -1)
    }

    func testTheWaitIsToTheNanosecondAndAHoldAlreadyOverWaitsForNothing() {
        XCTAssertEqual(PollHold(now: 0, until: 17 * ms + 999_999, timeoutMilliseconds: -1).waitNanoseconds,
                       17 * ms + 999_999)
        XCTAssertEqual(PollHold(now: 0, until: 17 * ms + 999_999, timeoutMilliseconds: 17).waitNanoseconds, 17 * ms,
                       "a timer due first")
        XCTAssertEqual(PollHold(now: 50 * ms, until: 40 * ms, timeoutMilliseconds: -1).waitNanoseconds, 0)
    }

    func testArrivalsAreLearnedFromTheEarliestReadsAndALateWakeUpRaisesThemALittle() {
        var a = ArrivalEstimate(format: .capture)
        XCTAssertNil(a.arrival(ofSample: 320), "nothing known before the first read")
        a.read(upTo: 320, at: 1_020 * ms)  // 20 ms of audio read at 1.020 s: it started arriving at 1.000 s
        XCTAssertEqual(a.origin, 1_000 * ms)
        XCTAssertEqual(a.arrival(ofSample: 640), 1_040 * ms, "the next chunk's last piece, 20 ms later")
        a.read(upTo: 640, at: 1_045 * ms)  // woke 5 ms late
        XCTAssertEqual(a.origin, 1_000 * ms + ArrivalEstimate.relaxNanoseconds, "a late wake-up raises it by the relax step only")
        a.read(upTo: 960, at: 1_059 * ms)  // a piece 1 ms early
        XCTAssertEqual(a.origin, 999 * ms)
    }

    func testTheEstimateFollowsAServerThatGotSlowerAndStartsAgainAfterAPause() {
        var a = ArrivalEstimate(format: .capture)
        a.read(upTo: 320, at: 1_020 * ms)
        // 3 ms more latency from now on: followed 0.2 ms a read, no further than the bound.
        for k in 2...6 { a.read(upTo: 320 * k, at: 1_003 * ms + UInt64(20 * k) * ms) }
        XCTAssertEqual(a.origin, 1_001 * ms)
        for k in 7...16 { a.read(upTo: 320 * k, at: 1_003 * ms + UInt64(20 * k) * ms) }
        XCTAssertEqual(a.origin, 1_003 * ms)
        // Corked for a second without a reset: the reads' bound jumps, and is taken as it is.
        a.read(upTo: 320 * 17, at: 2_003 * ms + UInt64(20 * 17) * ms)
        XCTAssertEqual(a.origin, 2_003 * ms)
        a.reset()
        XCTAssertNil(a.origin)
    }

    func testTheHoldEndsTheMarginBeforeTheChunkCanComplete() {
        // What the capture asks of the loop after a read that left `filled` of a 320-sample chunk.
        var a = ArrivalEstimate(format: .capture)
        a.read(upTo: 320 * 10, at: 5_200 * ms)
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: a.arrival(ofSample: 320 * 10 + 320)), 5_219 * ms + 500_000)
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: a.arrival(ofSample: 320 * 10 + 8)), 5_200 * ms,
                       "half a millisecond missing: no hold left")
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: nil), 0, "no hold while arrivals are unknown")
    }

    func testALateHoldEndsJustAfterTheChunkCanComplete() {
        var a = ArrivalEstimate(format: .capture)
        a.read(upTo: 320 * 10, at: 5_200 * ms)
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: a.arrival(ofSample: 320 * 10 + 320), late: true),
                       5_220 * ms + PulseCapture.lateHoldNanoseconds)
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: a.arrival(ofSample: 320 * 10 + 8), late: true),
                       5_200 * ms + 500_000 + PulseCapture.lateHoldNanoseconds,
                       "half a millisecond missing: held a little past it all the same")
        XCTAssertEqual(PulseCapture.holdDeadline(arrival: nil, late: true), 0, "no hold while arrivals are unknown")
        XCTAssertLessThan(PulseCapture.lateHoldNanoseconds, 2_500_000, "under the 2.5 ms pieces it waits for")
    }

    func testNoHoldWhenTheServersNextPieceCompletesTheChunk() {
        func unheld(missing: Int, piece: Int) -> Bool {
            PulseCapture.waitsForNextPieceUnheld(missing: missing, lastFreshPiece: piece)
        }
        // 20 ms pieces (what fragsize asked for) on a chunk boundary 8 ms off: the chunk lacks 12 ms, the next
        // piece brings 20. A hold would end 0.5 ms before 12 ms and wake the loop for nothing.
        XCTAssertTrue(unheld(missing: 192, piece: 320))
        XCTAssertTrue(unheld(missing: 320, piece: 320), "aligned: a piece a chunk")
        // 2.5 ms pieces (another recorder on the source): held as before.
        XCTAssertFalse(unheld(missing: 320, piece: 40))
        XCTAssertTrue(unheld(missing: 40, piece: 40), "the last piece of a chunk")
        XCTAssertFalse(unheld(missing: 320, piece: 0), "pieces not seen yet")
    }
}
