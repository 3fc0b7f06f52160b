import Foundation
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// `contextUpdate` as the service takes it: only on models that do (the others close with 1007), only in the
/// SDKs' shape, and followed from the next reply on (an instruction the reply script can check, the tools).
final class SimulatorContextTests: SimulatorTestCase {
    let fast = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)
    let pirate = Content(text: #"You are a pirate. Begin every reply with "Arr!" and keep it short."#)
    let clock = Tool(functionDeclarations: [FunctionDeclaration(name: "get_current_time", description: "Now", behavior: "BLOCKING")])

    func turn(_ client: SimTestClient, _ text: String) async throws -> [ServerMessage] {
        try client.send(.clientContent(.userText(text)))
        return try await client.collect(until: "turnComplete") { $0.isTurnComplete || $0.toolCall != nil }
    }

    func testANewInstructionAndToolsAreFollowedFromTheNextReplyOn() async throws {
        let (sim, client) = try await connected(fast)
        let before = try await turn(client, "hello")
        XCTAssertEqual(before.outputTranscript, "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        let noClock = try await turn(client, "what time is it")
        XCTAssertEqual(noClock.outputTranscript, "I can't check the clock from here, sorry. That's turn 2 of our chat.")

        try client.send(.contextUpdate(ContextUpdate(systemInstruction: pirate, tools: [clock])))
        let after = try await turn(client, "hello again")
        XCTAssertEqual(after.outputTranscript, "Arr! Hello! Yes, I can hear you clearly. That's turn 3 of our chat.",
                       "the instruction is followed and the earlier turns are still known")
        let call = try await turn(client, "what time is it")
        XCTAssertEqual(call.last?.toolCall?.functionCalls.map(\.name), ["get_current_time"], "the new tool is offered")
        let updates = sim.stats().contextUpdates
        XCTAssertEqual(updates.map(\.systemInstruction), [pirate.text])
        XCTAssertEqual(updates.map(\.declaredTools), [["get_current_time"]])
    }

    func testRemovedToolsAreNoLongerCalled() async throws {
        let (_, client) = try await connected(fast, setup: makeSetup(tools: ["get_current_time"]))
        try client.send(.contextUpdate(ContextUpdate(tools: [])))
        let noClock = try await turn(client, "what time is it")
        XCTAssertEqual(noClock.outputTranscript, "I can't check the clock from here, sorry. That's turn 1 of our chat.")
    }

    func testModelsWithoutContextUpdateCloseWith1007() async throws {
        for model in ["gemini-3.1-flash-live-preview", "gemini-2.5-flash-native-audio-preview-12-2025", "gemini-3.8-live-extended-thinking"] {
            let (sim, client) = try await connected(fast, setup: makeSetup(model: "models/\(model)", behavior: nil))
            try client.send(.contextUpdate(ContextUpdate(systemInstruction: pirate)))
            let reason = #"Invalid JSON payload received. Unknown name "contextUpdate": Cannot find field. (models/\#(model))"#
            try await assertClosed(client, code: 1007, reason: String(reason.prefix(123)))  // cut to a close frame's 123 bytes
            XCTAssertEqual(sim.stats().contextUpdates, [], model)
        }
    }

    func testAnInstructionOverTheWindowClosesWith1007AndTheTokenCount() async throws {
        let (_, client) = try await connected(fast)
        try client.send(.contextUpdate(ContextUpdate(systemInstruction: Content(text: String(repeating: "a", count: 4 * 131_073)))))
        try await assertClosed(client, code: 1007, reason: "The input token count (131073) exceeds the maximum number of tokens allowed (131072).")
    }

    func testABareToolListOrAnEmptyUpdateIsRefused() async throws {
        let (_, bare) = try await connected(fast)
        bare.sendRaw(#"{"contextUpdate": {"tools": [{"functionDeclarations": [{"name": "f"}]}]}}"#)
        try await assertClosed(bare, code: 1007, reason: "Request contains an invalid argument.")
        let (_, empty) = try await connected(fast)
        try empty.send(.contextUpdate(ContextUpdate()))
        try await assertClosed(empty, code: 1007, reason: "Request contains an invalid argument.")
    }
}
