import XCTest
@testable import TUI

final class TUISmokeTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}
