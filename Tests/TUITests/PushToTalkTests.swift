import XCTest
@testable import TUI

final class PushToTalkTests: XCTestCase {
    let space = KeyEvent.char(" ")
    let timings = PushToTalk.Timings(holdDetectWindow: 0.6, repeatTimeout: 0.12, tapMaxDuration: 0.25)

    func testTapTogglesOnAndNextTapOff() {
        var p = PushToTalk(mode: .autoRepeat, timings: timings)
        XCTAssertEqual(p.handle(space, now: 1.0), .startTalking)
        XCTAssertEqual(p.deadline, 1.6)
        XCTAssertNil(p.tick(now: 1.3))
        XCTAssertNil(p.tick(now: 1.6), "no repeat came: a tap, keep talking")
        XCTAssertTrue(p.isTalking)
        XCTAssertNil(p.deadline, "nothing to wait for while toggled on")
        XCTAssertEqual(p.handle(space, now: 5.0), .stopTalking)
        XCTAssertFalse(p.isTalking)
        XCTAssertNil(p.tick(now: 5.7))
        XCTAssertNil(p.deadline)
        XCTAssertEqual(p.handle(space, now: 6.0), .startTalking)
    }

    func testHoldRecognisedFromRepeatsAndReleaseInferred() {
        var p = PushToTalk(mode: .autoRepeat, timings: timings)
        XCTAssertEqual(p.handle(space, now: 0), .startTalking)
        // Auto-repeat: first after 0.5 s, then every 33 ms.
        var t = 0.5
        XCTAssertNil(p.handle(space, now: t))
        for _ in 0..<30 { t += 0.033; XCTAssertNil(p.tick(now: t)); XCTAssertNil(p.handle(space, now: t)) }
        XCTAssertTrue(p.isTalking)
        XCTAssertEqual(p.deadline ?? 0, t + 0.12, accuracy: 1e-9)
        XCTAssertNil(p.tick(now: t + 0.1))
        XCTAssertEqual(p.tick(now: t + 0.12), .stopTalking)
        XCTAssertFalse(p.isTalking)
        XCTAssertNil(p.deadline)
    }

    func testStoppingATapWithAHeldKeySwallowsItsRepeats() {
        var p = PushToTalk(mode: .autoRepeat, timings: timings)
        _ = p.handle(space, now: 0)
        _ = p.tick(now: 0.6)
        XCTAssertEqual(p.handle(space, now: 2.0), .stopTalking)
        var t = 2.5
        XCTAssertNil(p.handle(space, now: t))
        for _ in 0..<5 { t += 0.033; XCTAssertNil(p.handle(space, now: t)) }
        XCTAssertFalse(p.isTalking)
        XCTAssertNil(p.tick(now: t + 0.13))
        XCTAssertEqual(p.handle(space, now: t + 1), .startTalking)
    }

    func testLateEventFirstResolvesTheDeadline() {
        // The App woke late: a hold's release is inferred before the new press is taken.
        var p = PushToTalk(mode: .autoRepeat, timings: timings)
        _ = p.handle(space, now: 0)
        _ = p.handle(space, now: 0.5)
        XCTAssertEqual(p.handle(space, now: 3.0), .startTalking)
        XCTAssertTrue(p.isTalking)
    }

    func testKittyHoldAndTap() {
        var p = PushToTalk(mode: .kitty, timings: timings)
        XCTAssertEqual(p.handle(KeyEvent(.character(" ")), now: 0), .startTalking)
        XCTAssertNil(p.deadline, "kitty needs no timer")
        XCTAssertNil(p.handle(KeyEvent(.character(" "), kind: .repeat), now: 0.5))
        XCTAssertEqual(p.handle(KeyEvent(.character(" "), kind: .release), now: 2), .stopTalking)
        // Tap: press + quick release toggles on; next press stops; its release is swallowed.
        XCTAssertEqual(p.handle(KeyEvent(.character(" ")), now: 5), .startTalking)
        XCTAssertNil(p.handle(KeyEvent(.character(" "), kind: .release), now: 5.1))
        XCTAssertTrue(p.isTalking)
        XCTAssertEqual(p.handle(KeyEvent(.character(" ")), now: 8), .stopTalking)
        XCTAssertNil(p.handle(KeyEvent(.character(" "), kind: .release), now: 8.1))
        XCTAssertFalse(p.isTalking)
        // Without tap toggling a short press is just a short hold.
        var q = PushToTalk(mode: .kitty, timings: timings, kittyTapToggles: false)
        _ = q.handle(KeyEvent(.character(" ")), now: 0)
        XCTAssertEqual(q.handle(KeyEvent(.character(" "), kind: .release), now: 0.1), .stopTalking)
    }

    func testCancelAndOtherKeys() {
        var p = PushToTalk(mode: .autoRepeat, timings: timings)
        XCTAssertNil(p.handle(.char("v"), now: 0))
        _ = p.handle(space, now: 0)
        XCTAssertEqual(p.cancel(), .stopTalking)
        XCTAssertNil(p.cancel())
        XCTAssertNil(p.deadline)
    }
}
