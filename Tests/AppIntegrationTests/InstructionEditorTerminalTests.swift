import Foundation
import ParleyTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Issue 23: `E` lends the real terminal to the editor (the normal screen, the tty in its modes, keys to the
/// editor) and takes it back after, as Ctrl-Z and `fg` do; the saved instruction applies live.
final class InstructionEditorTerminalTests: XCTestCase {
    func testTheEditorGetsTheTerminalAndTheSavedInstructionApplies() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-editor-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        // An "editor" that shows itself, waits for a line typed on the terminal, then saves a new instruction.
        let editor = home + "/editor.sh"
        try """
            #!/bin/sh
            printf 'EDITOR HAS THE TERMINAL\\n'
            read answer
            printf 'Begin every reply with "Ahoy!"\\n' > "$1"
            """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let env = isolatedEnvironment(home: home, ["TERM": "tmux-256color", "PULSE_SERVER": "unix:/nonexistent/native", "VISUAL": editor])
        let tmux = try Tmux(env: env)
        defer { tmux.close() }
        try tmux.type("'\(Binaries.parley)' --demo --no-audio; echo EXITED:$?", enter: true)
        try tmux.wait(for: "DEMO")
        try tmux.type("E")
        try tmux.wait(for: "EDITOR HAS THE TERMINAL")
        XCTAssertFalse(try tmux.alternateScreen(), "the editor runs on the normal screen")
        try tmux.type("done", enter: true)
        try tmux.wait(for: "changed the instruction")
        XCTAssertTrue(try tmux.alternateScreen(), "parley took the terminal back")
        try tmux.type("\t")
        try tmux.type("hello there", enter: true)
        try tmux.wait(for: "Ahoy!")
        try tmux.keys("Escape")
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }
}
