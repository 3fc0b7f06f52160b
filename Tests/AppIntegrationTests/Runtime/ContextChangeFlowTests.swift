import Foundation
import Live
import LiveSimulator
import ParleyTesting
import ParleyTime
import TUI
import XCTest

@testable import App

/// Issue 23 end to end, in process: the instruction and the tools change mid-conversation — by `contextUpdate`
/// on 3.8, by a resume with the handle on a model without it — and the next reply shows the change took
/// effect while the earlier turns are still known (the simulator numbers its replies) and no turn is lost.
final class ContextChangeFlowTests: XCTestCase {
    static let pirate = #"You are a pirate. Begin every reply with "Arr!""#
    /// The new instruction, and no tools at all (the clock the first turn could use is gone).
    let change = ContextChange(instruction: ContextChangeFlowTests.pirate, tools: [])

    func converse(_ h: RuntimeHarness, _ text: String, answer: String, file: StaticString = #filePath, line: UInt = #line) {
        h.typeTurn(text)
        h.wait("the simulator to hear \"\(text)\"", file: file, line: line) { h.simulator.stats().userTurns.contains(text) }
        h.waitForScreen(answer, file: file, line: line)
    }

    /// A live conversation on `model` with its first turn answered.
    func started(model: String = LiveModel.defaultID) async throws -> RuntimeHarness {
        let h = try await RuntimeHarness { $0.model = model }
        h.start()
        h.waitUntilLive()
        converse(h, "hello", answer: "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        return h
    }

    func testOn38TheChangeGoesOutAsContextUpdateAndTheNextReplyFollowsIt() async throws {
        let h = try await started()

        h.events.post(.changeContext(change))
        h.wait("a contextUpdate on the wire") { h.wire.kinds.contains("contextUpdate") }
        h.waitForScreen("changed the instruction and the tools (none) — the conversation continues")
        let update = try XCTUnwrap(h.wire.messages.compactMap { $0["contextUpdate"] as? [String: Any] }.first)
        XCTAssertEqual(((update["systemInstruction"] as? [String: Any])?["parts"] as? [[String: Any]])?.first?["text"] as? String,
                       Self.pirate)
        let tools = (update["tools"] as? [String: Any])?["tools"] as? [Any]
        XCTAssertEqual(tools?.count, 0, "no tools: the SDK's wrapper with an empty list")

        converse(h, "what time is it", answer: "Arr! I can't check the clock from here, sorry. That's turn 2 of our chat.")
        let stats = h.simulator.stats()
        XCTAssertEqual(stats.setups.count, 1, "no reconnect")
        XCTAssertEqual(stats.contextUpdates.map(\.systemInstruction), [Self.pirate])
        XCTAssertEqual(stats.userTurns, ["hello", "what time is it"], "each turn once")
        XCTAssertEqual(stats.toolCallsSent, [], "the removed clock was not offered")
        await h.stop()
    }

    func testWithoutContextUpdateTheChangeResumesWithTheHandleAndTheNextReplyFollowsIt() async throws {
        let h = try await started(model: "gemini-2.5-flash-native-audio-preview-12-2025")

        h.events.post(.changeContext(change))
        h.wait("a second setup") { h.simulator.stats().setups.count == 2 }
        h.waitForScreen("changed the instruction and the tools (none) — resumed on a new connection, the conversation continues")
        let setups = h.simulator.stats().setups
        XCTAssertTrue(setups[1].resumed, "resumed with the handle")
        XCTAssertEqual(setups[1].sessionID, setups[0].sessionID, "the same conversation")
        XCTAssertEqual(setups[1].systemInstruction, Self.pirate)
        XCTAssertEqual(setups[1].declaredTools, [])
        XCTAssertFalse(h.wire.kinds.contains("contextUpdate"), "never sent to a model that refuses it")

        converse(h, "what time is it", answer: "Arr! I can't check the clock from here, sorry. That's turn 2 of our chat.")
        XCTAssertEqual(h.simulator.stats().userTurns, ["hello", "what time is it"], "each turn once")
        XCTAssertEqual(h.simulator.stats().toolCallsSent, [], "the removed clock was not offered")
        await h.stop()
    }

    /// A turn typed right behind the change, while the session moves to the new connection: answered once, on
    /// whichever connection it reached (sent again, and said so, if the hand-over cut its first reply), and the
    /// conversation goes on under the new instruction.
    func testATurnTypedDuringTheResumeIsAnsweredOnce() async throws {
        let h = try await started(model: "gemini-2.5-flash-native-audio-preview-12-2025")
        h.events.post(.changeContext(change))
        h.typeTurn("are you there")
        h.wait("the typed turn heard") { h.simulator.stats().userTurns.contains("are you there") }
        h.waitForScreen("That's turn 2 of our chat.")
        h.wait("the resume") { h.simulator.stats().setups.count == 2 }
        converse(h, "and now", answer: "Arr! You said: and now. That's turn 3 of our chat.")
        // The hand-over may cut the old connection's reply to the typed turn (it waits for the turn's end only
        // so long); then the turn is sent once more on the new connection, and the screen says so.
        let turns = h.simulator.stats().userTurns
        let resent = h.screen.contains("sent again on the new connection")
        XCTAssertEqual(turns.filter { $0 == "are you there" }.count, resent ? 2 : 1, "sent once, or once more after a cut reply")
        XCTAssertEqual(turns.filter { $0 != "are you there" }, ["hello", "and now"], "nothing lost")
        XCTAssertEqual(h.screen.components(separatedBy: "You said: are you there").count - 1, 1, "answered once")
        await h.stop()
    }
}
