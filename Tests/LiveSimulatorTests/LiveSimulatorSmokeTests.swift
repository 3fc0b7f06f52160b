import XCTest
@testable import LiveSimulator

final class LiveSimulatorSmokeTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}
