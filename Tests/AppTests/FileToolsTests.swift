import Foundation
import Live
import XCTest

@testable import App

final class FileToolsTests: XCTestCase {
    var root: String!
    var outside: String!

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID())").path
        root = base + "/allowed"
        outside = base + "/secret"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "hello notes".write(toFile: root + "/notes.txt", atomically: true, encoding: .utf8)
        try "key=AIza".write(toFile: outside + "/keys.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/escape", withDestinationPath: outside)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent)
    }

    func testReadsInsideAllowedDirectories() throws {
        let tools = FileTools(allowed: [root])
        let r = try tools.readFile(["path": .string(root + "/notes.txt")])
        XCTAssertEqual(r["content"], "hello notes")
        XCTAssertEqual(r["truncated"], false)
        XCTAssertEqual(try tools.readFile(["path": "notes.txt"])["content"], "hello notes", "relative to the first root")
        let list = try tools.listDirectory([:])
        XCTAssertEqual(list["entries"], ["escape/", "notes.txt", "sub/"])
    }

    func testRefusesEverythingOutsideEvenThroughDotDotAndSymlinks() {
        let tools = FileTools(allowed: [root])
        for path in [outside + "/keys.txt", root + "/../secret/keys.txt", root + "/escape/keys.txt", "/etc/passwd"] {
            XCTAssertThrowsError(try tools.readFile(["path": .string(path)]), path) { e in
                XCTAssertTrue("\(e)".contains("outside the directories the user allowed"), "\(e)")
            }
        }
        XCTAssertThrowsError(try FileTools(allowed: []).readFile(["path": .string(root + "/notes.txt")])) { e in
            XCTAssertTrue("\(e)".contains("allowed no directories"), "\(e)")
        }
    }

    func testCapsTheSize() throws {
        var tools = FileTools(allowed: [root])
        tools.maxBytes = 5
        let r = try tools.readFile(["path": "notes.txt"])
        XCTAssertEqual(r["content"], "hello")
        XCTAssertEqual(r["truncated"], true)
    }

    func testRegistryAnswersFailuresAsStructuredErrors() async {
        var settings = Config.ToolSettings()
        settings.readFile = true
        settings.allowedDirectories = [root]
        let registry = ToolRegistry.builtIn(settings)
        XCTAssertEqual(registry.declarations.first?.functionDeclarations?.map(\.name), ["get_current_time", "read_file"])
        let answers = await registry.answer([
            FunctionCall(id: "1", name: "read_file", args: ["path": .string(outside + "/keys.txt")]),
            FunctionCall(id: "2", name: "read_file", args: ["path": "notes.txt"]),
        ])
        XCTAssertEqual(answers.map(\.id), ["1", "2"])
        XCTAssertNotNil(answers[0].response["error"])
        XCTAssertFalse(answers[0].response.compactText.contains("AIza"), "nothing outside leaks, even in errors")
        XCTAssertEqual(answers[1].response["content"], "hello notes")
    }
}
