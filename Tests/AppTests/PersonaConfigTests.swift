@testable import Conversation
import Foundation
import Live
import XCTest

@testable import App

final class PersonaConfigTests: XCTestCase {
    func parse(_ toml: String, file: String = "/tmp/config.toml") throws -> Config {
        var c = Config()
        try c.apply(toml: toml, file: file)
        return c
    }

    func testReadsPersonasInOrderWithEveryKey() throws {
        let c = try parse("""
            system = "Be brief."

            [[persona]]
            name = "Pirate"
            system = "Talk like a pirate."
            voice = "fenrir"
            greeting = "Say ahoy."
            [persona.tools]
            get_current_time = false
            files = true

            [[persona]]
            name = "Thinker"
            thinking = "HIGH"
            tools = { read_file = true }
            """)
        XCTAssertEqual(c.systemInstruction, "Be brief.")
        XCTAssertEqual(c.personas.map(\.name), ["Pirate", "Thinker"])
        XCTAssertEqual(c.personas[0], Persona(
            name: "Pirate", system: "Talk like a pirate.", voice: "Fenrir", tools: ["get_current_time": false, "files": true],
            greeting: "Say ahoy."))
        XCTAssertEqual(c.personas[1].thinking, "high")
        XCTAssertEqual(c.personas[1].tools, ["read_file": true])
        XCTAssertNil(c.personas[1].system)
    }

    func testSystemFileIsReadBesideTheConfig() throws {
        let dir = NSTemporaryDirectory() + "persona-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "You review code.\n\nBe blunt.\n".write(toFile: dir + "/reviewer.md", atomically: true, encoding: .utf8)
        let c = try parse("""
            system_file = "reviewer.md"
            [[persona]]
            name = "Reviewer"
            system_file = "reviewer.md"
            """, file: dir + "/config.toml")
        XCTAssertEqual(c.systemInstruction, "You review code.\n\nBe blunt.")
        XCTAssertEqual(c.personas[0].system, "You review code.\n\nBe blunt.")
        XCTAssertEqual(c.personas[0].systemFile, dir + "/reviewer.md")
    }

    func testBadEntriesNameTheFileTheEntryAndTheLine() {
        func error(_ toml: String) -> String {
            do {
                _ = try parse(toml)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\ncolour = \"red\"\n"),
                       "/tmp/config.toml:3: [[persona]] A: colour: unknown setting (known: name, system, system_file, voice, thinking, tools, greeting)")
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\nsystem = \"x\"\nsystem_file = \"y\"\n"),
                       "/tmp/config.toml:4: [[persona]] A: system_file: give system or system_file, not both")
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\n\n[[persona]]\nname = \"a\"\n"),
                       "/tmp/config.toml:5: [[persona]] a: name: a second persona with this name (names must differ, ignoring case)")
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\n[[persona]]\nname = \"B\"\nvoice = \"Nobody\"\n"),
                       "/tmp/config.toml:5: [[persona]] B: voice: no voice named Nobody (see parley voices)")
        XCTAssertEqual(error("[[persona]]\nvoice = \"Kore\"\n"), "/tmp/config.toml:1: [[persona]] entry 1: needs name = \"…\"")
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\nsystem_file = \"/nonexistent/x.md\"\n"),
                       "/tmp/config.toml:3: [[persona]] A: system_file: cannot read /nonexistent/x.md")
        XCTAssertEqual(error("[[persona]]\nname = \"A\"\n[persona.tools]\nshell = \"yes\"\n"),
                       "/tmp/config.toml:4: [[persona]] A: tools.shell: must be true or false")
        XCTAssertTrue(error("[[persona]]\nname = \"none\"\n").contains("kept for going back"))
        XCTAssertTrue(error("persona = 3\n").contains("must be [[persona]] tables"))
        XCTAssertEqual(error("system = \"a\"\nsystem_file = \"b\"\n"), "/tmp/config.toml:2: system_file: give system or system_file, not both")
    }

    func testPersonaFlagAdoptsTheEntryAndFlagsStillWin() throws {
        let file = NSTemporaryDirectory() + "persona-\(UUID().uuidString).toml"
        try """
            system = "Be brief."
            voice = "Kore"
            [[persona]]
            name = "Pirate"
            system = "Talk like a pirate."
            voice = "Fenrir"
            """.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let c = try CommonOptions.parse(["--config", file, "--persona", "pirate"]).resolve()
        XCTAssertEqual(c.persona, "Pirate")
        XCTAssertEqual(c.systemInstruction, "Talk like a pirate.")
        XCTAssertEqual(c.voice, "Fenrir")
        let flagged = try CommonOptions.parse(["--config", file, "--persona", "Pirate", "--voice", "Puck"]).resolve()
        XCTAssertEqual(flagged.voice, "Puck", "a flag beats the persona")
        let none = try CommonOptions.parse(["--config", file, "--persona", "none"]).resolve()
        XCTAssertNil(none.persona)
        XCTAssertEqual(none.systemInstruction, "Be brief.")
        XCTAssertThrowsError(try CommonOptions.parse(["--config", file, "--persona", "Ninja"]).resolve()) { e in
            XCTAssertEqual("\(e)", "no persona named Ninja — known: Pirate")
        }
    }

    func testPersonaThinkingIsCheckedAgainstTheModel() throws {
        let file = NSTemporaryDirectory() + "persona-\(UUID().uuidString).toml"
        try "[[persona]]\nname = \"Deep\"\nthinking = \"high\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let plain = LiveModel.all.first { $0.thinking == .none }?.id ?? "gemini-3.1-flash-live-preview"
        XCTAssertThrowsError(try CommonOptions.parse(["--config", file, "--persona", "Deep", "--model", plain]).resolve()) { e in
            XCTAssertTrue("\(e)".hasPrefix("persona Deep: thinking = \"high\" is not accepted by \(plain)"), "\(e)")
        }
    }

    func testPrintedConfigKeepsPersonas() throws {
        let c = try parse("[[persona]]\nname = \"A\"\nvoice = \"Kore\"\ntools = { \"read_file\" = true }\n")
        let again = try parse(c.printed)
        XCTAssertEqual(again.personas, c.personas)
    }
}
