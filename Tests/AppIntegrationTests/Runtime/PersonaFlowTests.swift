@testable import Conversation
import Foundation
import Live
import LiveSimulator
import ParleyTesting
import TUI
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// Issue 23 from the user's side, in process against the simulator: `p` switches persona mid-conversation,
/// the tool pane turns a tool off, `E` edits the instruction in an editor; each time the next reply shows the
/// change took effect and no turn is lost or sent twice.
final class PersonaFlowTests: XCTestCase {
    static let pirate = Persona(
        name: "Pirate", system: #"You are a pirate. Begin every reply with "Arr!""#, voice: "Fenrir",
        tools: ["get_current_time": false])

    func key(_ c: Character) -> KeyEvent { KeyEvent(.character(c)) }

    func converse(_ h: RuntimeHarness, _ text: String, answer: String, file: StaticString = #filePath, line: UInt = #line) {
        h.typeTurn(text)
        h.wait("the simulator to hear \"\(text)\"", file: file, line: line) { h.simulator.stats().userTurns.contains(text) }
        h.waitForScreen(answer, file: file, line: line)
    }

    func started() async throws -> RuntimeHarness {
        let h = try await RuntimeHarness { $0.personas = [Self.pirate] }
        h.start()
        h.waitUntilLive()
        converse(h, "hello", answer: "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        return h
    }

    func testChoosingAPersonaChangesInstructionVoiceAndToolsAndKeepsTheConversation() async throws {
        let h = try await started()
        h.press(key("p"))
        h.waitForScreen("Persona (2)")
        h.press(key("p"), key("i"), key("r"), KeyEvent(.enter))
        h.waitForScreen("changed the instruction, the tools (none) and the voice (Fenrir)")
        h.waitForScreen("persona Pirate")
        let setups = h.simulator.stats().setups
        XCTAssertEqual(setups.last?.systemInstruction, Self.pirate.system)
        XCTAssertEqual(setups.last?.declaredTools, [], "the persona turned the clock off")
        XCTAssertEqual(setups.last?.sessionID, setups.first?.sessionID, "the same conversation")

        converse(h, "what time is it", answer: "Arr! I can't check the clock from here, sorry. That's turn 2 of our chat.")
        XCTAssertEqual(h.simulator.stats().userTurns, ["hello", "what time is it"], "each turn once")
        XCTAssertEqual(h.simulator.stats().toolCallsSent, [])
        await h.stop()
    }

    func testATurnedOffToolIsNoLongerOfferedAndTurnsBackOn() async throws {
        let h = try await started()
        h.press(key("t"), KeyEvent(.right))
        h.waitForScreen("tools (1 of 2 on)")
        h.press(key(" "))
        h.waitForScreen("tools: get_current_time off")
        h.wait("a contextUpdate on the wire") { h.wire.kinds.contains("contextUpdate") }
        h.press(KeyEvent(.escape))
        converse(h, "what time is it", answer: "I can't check the clock from here, sorry. That's turn 2 of our chat.")
        XCTAssertEqual(h.simulator.stats().toolCallsSent, [], "the clock was not offered")

        h.press(key("t"), KeyEvent(.right), key(" "), KeyEvent(.escape))
        h.waitForScreen("tools: get_current_time on")
        h.wait("the second contextUpdate") { h.wire.kinds.filter { $0 == "contextUpdate" }.count == 2 }
        h.typeTurn("what time is it now")
        h.wait("the clock called") { !h.simulator.stats().toolCallsSent.isEmpty }
        XCTAssertEqual(h.simulator.stats().setups.count, 1, "no reconnect: contextUpdate on 3.8")
        await h.stop()
    }

    func testEditingTheInstructionAppliesItLiveAndAnUnchangedFileChangesNothing() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-editor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let editor = dir + "/editor.sh"
        // The "editor" records its file's mode and path, then writes the new instruction.
        try """
            #!/bin/sh
            stat -c %a "$1" > \(dir)/mode
            echo "$1" > \(dir)/path
            printf 'Begin every reply with "Ahoy!"\\n' > "$1"
            """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let saved = getenv("VISUAL").map { String(cString: $0) }
        defer { if let saved { setenv("VISUAL", saved, 1) } else { unsetenv("VISUAL") } }

        let h = try await started()
        setenv("VISUAL", "true", 1)
        h.press(key("E"))
        h.waitForScreen("instruction unchanged — nothing to apply")
        XCTAssertFalse(h.wire.kinds.contains("contextUpdate"))

        setenv("VISUAL", editor, 1)
        h.press(key("E"))
        h.wait("a contextUpdate on the wire") { h.wire.kinds.contains("contextUpdate") }
        h.waitForScreen("changed the instruction — the conversation continues")
        XCTAssertEqual(try String(contentsOfFile: dir + "/mode", encoding: .utf8), "600\n", "the file is private")
        let path = try String(contentsOfFile: dir + "/path", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "removed after")
        converse(h, "and now", answer: "Ahoy! You said: and now. That's turn 2 of our chat.")
        XCTAssertEqual(h.simulator.stats().userTurns, ["hello", "and now"])
        await h.stop()
    }
}
