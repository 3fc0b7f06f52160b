import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

@testable import App

final class AttachmentInputTests: XCTestCase {
    func testAtPathAttachesAnExistingFileAndKeepsTheQuestion() {
        let a = AttachmentInput.parse("@shots/red.png what is this?", fileExists: { $0 == "shots/red.png" })
        XCTAssertEqual(a, AttachmentInput(paths: ["shots/red.png"], text: "what is this?"))
        XCTAssertEqual(AttachmentInput.parse("meet @ noon @nobody", fileExists: { _ in false }).paths, [])
    }

    func testTabCompletesPaths() {
        let list: (String) -> [String]? = { $0 == "shots/" ? ["red.png", "red2.png", "blue.png"] : $0 == "./" ? ["shots"] : nil }
        XCTAssertEqual(AttachmentInput.complete("@shots/r", list: list, isDirectory: { _ in false }), "@shots/red")
        XCTAssertEqual(AttachmentInput.complete("@shots/b", list: list, isDirectory: { _ in false }), "@shots/blue.png")
        XCTAssertEqual(AttachmentInput.complete("@sh", list: list, isDirectory: { $0 == "./shots" }), "@shots/")
        XCTAssertNil(AttachmentInput.complete("@x", list: list, isDirectory: { _ in false }))
    }
}
