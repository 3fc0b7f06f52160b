import XCTest
@testable import App

final class AppSmokeTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}
