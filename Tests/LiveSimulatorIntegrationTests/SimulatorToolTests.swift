import Foundation
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// Tool calls: asked for by the user's words, answered by id, cancelled by a barge-in.
final class SimulatorToolTests: SimulatorTestCase {
    let fast = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)

    func testTimeQuestionCallsTheDeclaredTool() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(tools: ["get_current_time"]))
        try client.send(.clientContent(.userText("What time is it?")))
        let seen = try await client.collect(until: "toolCall") { $0.toolCall != nil }
        XCTAssertTrue(seen.contains { $0.sessionResumptionUpdate?.resumable == false }, "not resumable during a tool call")
        let call = try XCTUnwrap(seen.last?.toolCall?.functionCalls.first)
        XCTAssertEqual(call.name, "get_current_time")
        XCTAssertEqual(call.args, .object([:]))
        XCTAssertFalse(call.id.isEmpty)

        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: call.id, name: call.name, response: ["time": "10:42"]),
        ])))
        let reply = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(reply.outputTranscript, "It's 10:42 right now. That's turn 1 of our chat.")
        let stats = sim.stats()
        XCTAssertEqual(stats.toolCallsSent, [call.id])
        XCTAssertEqual(stats.toolResponsesReceived, [call.id])
        XCTAssertEqual(stats.unknownToolResponseIDs, [])
    }

    func testUndeclaredToolIsNotCalled() async throws {
        let (sim, client) = try await connected(fast)
        try client.send(.clientContent(.userText("what time is it")))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertFalse(seen.contains { $0.toolCall != nil })
        XCTAssertEqual(seen.outputTranscript, "I can't check the clock from here, sorry. That's turn 1 of our chat.")
        XCTAssertEqual(sim.stats().toolCallsSent, [])
    }

    func testSpeechDuringTheWaitCancelsTheCall() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(automatic: true, tools: ["get_current_time"]))
        try client.send(.realtimeInput(.text("what time is it")))
        let calls0 = try await firstToolCall(client)
        let call = try XCTUnwrap(calls0.first)
        try sendAudio(client, milliseconds: 200)
        let seen = try await client.collect(until: "toolCallCancellation") { $0.toolCallCancellation != nil }
        XCTAssertEqual(seen.last?.toolCallCancellation?.ids, [call.id])
        XCTAssertEqual(sim.stats().toolCallsCancelled, [call.id])

        // A late answer to the cancelled call is recorded but not spoken about.
        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: call.id, name: call.name, response: ["time": "too late"]),
        ])))
        try sendAudio(client, milliseconds: 700, amplitude: 0)
        let next = try await client.collect(until: "the next turn") { $0.isTurnComplete }
        XCTAssertEqual(next.inputTranscript, "Hello, can you hear me?")
        XCTAssertFalse(next.outputTranscript.contains("too late"))
        XCTAssertEqual(sim.stats().unknownToolResponseIDs, [call.id])
        XCTAssertEqual(sim.stats().responsesToCancelledCalls, [call.id])
    }

    func testActivityStartDuringTheWaitCancelsTheCall() async throws {
        let (_, client) = try await connected(fast, setup: makeSetup(automatic: false, tools: ["get_current_time"]))
        try client.send(.clientContent(.userText("what time is it")))
        let calls0 = try await firstToolCall(client)
        let call = try XCTUnwrap(calls0.first)
        try client.send(.realtimeInput(.activityStart))
        let seen = try await client.collect(until: "toolCallCancellation") { $0.toolCallCancellation != nil }
        XCTAssertEqual(seen.last?.toolCallCancellation?.ids, [call.id])
    }

    func testScriptedCallsWaitForEveryResponse() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(tools: ["read_file", "list_directory"]))
        try client.send(.clientContent(.userText(#"call read_file {"path":"notes.txt"} and call list_directory {"path":"."}"#)))
        let calls = try await firstToolCall(client)
        XCTAssertEqual(calls.map(\.name), ["read_file", "list_directory"])
        XCTAssertEqual(calls.map(\.args), [["path": "notes.txt"], ["path": "."]])
        XCTAssertEqual(Set(calls.map(\.id)).count, 2, "ids are unique")

        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: "no-such-call", name: "read_file", response: ["output": "?"]),
            FunctionResponse(id: calls[1].id, name: "list_directory", response: ["output": "a.txt b.txt"]),
        ])))
        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: calls[0].id, name: "read_file", response: ["error": "permission denied"]),
        ])))
        let reply = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(reply.outputTranscript,
                       "read_file failed: permission denied. list_directory says a.txt b.txt. That's turn 1 of our chat.")
        let stats = sim.stats()
        XCTAssertEqual(stats.unknownToolResponseIDs, ["no-such-call"])
        XCTAssertEqual(stats.responsesToCancelledCalls, [])
        XCTAssertEqual(stats.toolResponsesReceived, ["no-such-call", calls[1].id, calls[0].id])
    }

    func testScriptedTranscriptCanCallATool() async throws {
        let options = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false,
                                       audioTranscripts: [#"call run_shell_command {"command":"ls"}"#])
        let (_, client) = try await connected(options, setup: makeSetup(automatic: false, tools: ["run_shell_command"]))
        try client.send(.realtimeInput(.activityStart))
        try sendAudio(client, milliseconds: 100)
        try client.send(.realtimeInput(.activityEnd))
        let calls0 = try await firstToolCall(client)
        let call = try XCTUnwrap(calls0.first)
        XCTAssertEqual(call.name, "run_shell_command")
        XCTAssertEqual(call.args, ["command": "ls"])
    }

    /// Waits for the next `toolCall` and returns its function calls.
    private func firstToolCall(_ client: SimTestClient) async throws -> [FunctionCall] {
        let seen = try await client.collect(until: "toolCall") { $0.toolCall != nil }
        return seen.last?.toolCall?.functionCalls ?? []
    }
}
