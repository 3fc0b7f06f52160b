import LiveSimulator
import XCTest

@testable import App

/// `parley simulate`'s flags become the simulator's options (also through `PARLEY_DEMO_SIM_OPTIONS`).
final class SimulateOptionsTests: XCTestCase {
    func testTurnsWaitForPlaybackUnlessToldToEndAtOnce() throws {
        XCTAssertTrue(try Simulate.parse([]).options.turnCompleteAfterPlayback, "like the service, by default")
        let quick = try DemoSimulator.options(environment: ["PARLEY_DEMO_SIM_OPTIONS": "--turn-complete-at-once --reply-delay 0"])
        XCTAssertFalse(quick.turnCompleteAfterPlayback)
        XCTAssertEqual(quick.replyDelay, .zero)
    }
}
