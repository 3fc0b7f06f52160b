import XCTest
@testable import Live

final class LiveSmokeTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}
