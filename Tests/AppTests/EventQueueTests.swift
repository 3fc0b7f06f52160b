import XCTest

#if canImport(Glibc)
import Glibc
#endif

@testable import App
@testable import Conversation

/// The hand-off to the run loop: an event posted is never lost, whether or not the loop's poll saw the pipe.
final class EventQueueTests: XCTestCase {
    func testDrainingAfterAPollThatSawThePipeTakesTheEventsAndClearsTheWakeUp() {
        let events = EventQueue()
        events.post(.tick)
        events.post(.quitRequested)
        XCTAssertTrue(Self.readable(events.fd))
        XCTAssertEqual(events.drain(pipeReadable: true).count, 2)
        XCTAssertFalse(Self.readable(events.fd), "the wake-up is cleared")
    }

    /// An event posted between the poll (which timed out) and the drain: taken now, and its byte, left in the
    /// pipe, wakes the next poll at once (one pass with nothing to do, nothing lost).
    func testDrainingAfterAPollThatSawNothingStillTakesWhatWasPostedSince() {
        let events = EventQueue()
        XCTAssertFalse(Self.readable(events.fd))
        events.post(.tick)  // after the poll
        XCTAssertEqual(events.drain(pipeReadable: false).count, 1)
        XCTAssertTrue(Self.readable(events.fd), "the next poll wakes")
        XCTAssertEqual(events.drain(pipeReadable: true).count, 0)
        XCTAssertFalse(Self.readable(events.fd))
    }

    private static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }
}
