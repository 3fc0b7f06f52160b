@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// Context changes in the reducer: asked for, applied or refused, said in the transcript, recorded with what
/// changed and when, and exported sensibly.
extension ReducerTests {
    func testAChangeIsAskedOfTheSessionAndItsOutcomeSaidAndRecorded() {
        live()
        let change = ContextChange(
            instruction: "Be a pirate.\nSay arr.", tools: [Tool(functionDeclarations: [FunctionDeclaration(name: "read_file")])],
            voice: "Kore")
        let asked = on(.changeContext(change))
        XCTAssertTrue(asked.contains(.live(.changeContext(change, duringReply: false))), "\(asked)")
        XCTAssertEqual(lines.last?.1, "changing the instruction, the tools (1 tool) and the voice (Kore)…")
        XCTAssertEqual(s.voice, "Puck", "nothing changes before the session says it took effect")

        let applied = on(.live(.contextChanged(change, via: .resume)))
        XCTAssertEqual(s.voice, "Kore")
        XCTAssertEqual(s.ui.header.voice, "Kore")
        XCTAssertEqual(lines.last?.1, "changed the instruction, the tools (1 tool) and the voice (Kore) — resumed on a new connection, the conversation continues")
        XCTAssertTrue(applied.contains(.rememberVoice("Kore")))
        guard var stamped = records(applied).first(where: { $0.kind == .context }), case .context(let record) = stamped.entry else {
            return XCTFail("a context record")
        }
        XCTAssertEqual(record.system, "Be a pirate.\nSay arr.")
        XCTAssertEqual(record.tools, ["read_file"])
        XCTAssertEqual(record.voice, "Kore")
        XCTAssertEqual(record.route, .resume)

        stamped.time = "2026-11-24T05:30:00Z"
        let markdown = TranscriptStore.markdown([stamped], title: "t")
        XCTAssertTrue(markdown.contains("> context changed at 2026-11-24T05:30:00Z (through a resume): tools `read_file` · voice Kore\n"), markdown)
        XCTAssertTrue(markdown.contains(">\n> new system instruction:\n>\n> > Be a pirate.\n> > Say arr.\n"), markdown)
    }

    func testAChangeDuringAReplyWaitsForItAndARefusalIsSaid() {
        live()
        on(.live(.outputTranscription("Let me tell you", finished: false)))
        let change = ContextChange(tools: [])
        XCTAssertTrue(on(.changeContext(change)).contains(.live(.changeContext(change, duringReply: true))))
        on(.live(.contextRefused(change, .sessionEnded)))
        XCTAssertEqual(lines.last?.1, "the context was not changed (the tools (none)): the session has ended")
        XCTAssertEqual(s.ui.transcript.entries.last?.speaker, .error)
        let removed = TranscriptRecord.context(ContextChange(instruction: "", tools: []), via: .contextUpdate)
        XCTAssertEqual(TranscriptStore.markdown([removed], title: "t").contains("(in place): no system instruction · no tools"), true)
    }
}
