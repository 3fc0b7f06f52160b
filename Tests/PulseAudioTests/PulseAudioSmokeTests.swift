import XCTest
@testable import PulseAudio

final class PulseAudioSmokeTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}
