import Foundation
import Live
import LiveSimulator
import NIOWebSocket
import LiveTesting
import XCTest

/// 3.8 semantics on loopback: per-model setup checks with the service's closes, snake_case setups, thoughts,
/// interim transcription, the resumption updates' order, and NON_BLOCKING tools with scheduling.
final class SimulatorModelTests: SimulatorTestCase {
    let fast = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)

    func closedSetup(_ setup: Setup) async throws -> (code: Int, reason: String) {
        let sim = try await startSimulator()
        let client = SimTestClient(url: sim.url)
        try client.send(.setup(setup))
        let frame = try await client.closeFrame()
        let reason = frame?.reason ?? ""
        XCTAssertLessThanOrEqual(reason.utf8.count, 123, "a close frame carries at most 123 bytes of reason")
        return (frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) } ?? 0, reason)
    }

    func testWhatAModelDoesNotTakeIsClosedWith1007() async throws {
        var proactiveOff = makeSetup()
        proactiveOff.proactivity = Proactivity(proactiveAudio: false)
        let off = try await closedSetup(proactiveOff)
        XCTAssertEqual(off.code, 1007)
        XCTAssertTrue(off.reason.hasPrefix("Proactive audio is always enabled"), off.reason)

        var thinking = makeSetup()
        thinking.generationConfig?.thinkingConfig = ThinkingConfig(thinkingLevel: "high")
        let t = try await closedSetup(thinking)
        XCTAssertEqual(t.code, 1007)
        XCTAssertTrue(t.reason.contains("thinking_config"), t.reason)

        let asyncOn31 = try await closedSetup(makeSetup(model: "models/gemini-3.1-flash-live-preview", tools: ["f"], behavior: "NON_BLOCKING"))
        XCTAssertEqual(asyncOn31.code, 1007)

        var extended = makeSetup(model: "models/gemini-3.8-live-extended-thinking")
        extended.generationConfig?.thinkingConfig = ThinkingConfig(thinkingLevel: "high")
        _ = try await connected(setup: extended)
    }

    func testShutDownModelsAreNotFoundAndLongReasonsAreCut() async throws {
        let long = "models/gemini-2.0-flash-live-001-" + String(repeating: "x", count: 80)
        let closed = try await closedSetup(makeSetup(model: long))
        XCTAssertEqual(closed.code, 1008)
        XCTAssertEqual(closed.reason.utf8.count, 123, "cut where the limit falls, mid-word")
        XCTAssertTrue(closed.reason.hasPrefix("models/gemini-2.0-flash-live-001-xxx"), closed.reason)
    }

    func testClientContentMidSessionOn31IsClosedButRealtimeTextIsAnswered() async throws {
        let (_, client) = try await connected(fast, setup: makeSetup(model: "models/gemini-3.1-flash-live-preview"))
        try client.send(.realtimeInput(.text("hello there")))
        let reply = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(reply.outputTranscript, "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        try client.send(.clientContent(.userText("and now typed")))
        let frame = try await client.closeFrame()
        XCTAssertEqual(frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, 1007)
    }

    func testASnakeCaseSetupAsTheSDKSendsItIsAccepted() async throws {
        let sim = try await startSimulator(fast)
        let client = SimTestClient(url: sim.url)
        client.sendRaw("""
            {"setup": {"model": "models/gemini-3.8-live", "generation_config": {"response_modalities": ["AUDIO"],
             "speech_config": {"voice_config": {"prebuilt_voice_config": {"voice_name": "Kore"}}}},
             "output_audio_transcription": {}}}
            """)
        let first = try await client.nextMessage()
        XCTAssertNotNil(first.setupComplete)
        client.sendRaw(#"{"client_content": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turn_complete": true}}"#)
        let reply = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertTrue(reply.outputTranscript.hasPrefix("Hello!"), reply.outputTranscript)
        XCTAssertEqual(sim.stats().setups.first?.voiceName, "Kore")
    }

    func testA38TurnSendsThoughtsAnEmptyUpdateFirstAndTheHandleAfterTurnComplete() async throws {
        let (_, client) = try await connected(fast)
        try client.send(.clientContent(.userText("hello")))
        var seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        let updates = seen.compactMap(\.sessionResumptionUpdate)
        XCTAssertEqual(updates.first, SessionResumptionUpdate(), "an empty update opens the model's turn")
        let firstModelMessage = seen.firstIndex { $0.serverContent?.modelTurn != nil || $0.serverContent?.outputTranscription != nil }
        let emptyUpdate = seen.firstIndex { $0.sessionResumptionUpdate == SessionResumptionUpdate() }
        XCTAssertLessThan(emptyUpdate ?? .max, firstModelMessage ?? 0)
        let thoughts = seen.compactMap { $0.serverContent?.modelTurn?.parts.compactMap(\.text).joined() }.filter { !$0.isEmpty }
        XCTAssertEqual(thoughts.count, 1)
        XCTAssertTrue(thoughts.first?.hasPrefix("**") == true, "a bold heading, then a sentence")
        seen = try await client.collect(until: "the new handle") { $0.sessionResumptionUpdate?.usableHandle != nil }
        XCTAssertEqual(seen.count, 1, "the handle is the next message after turnComplete")
    }

    func testSpeechOn38GetsAnInterimTranscriptBeforeTheFinalOne() async throws {
        let (_, client) = try await connected(fast, setup: makeSetup(automatic: false))
        try client.send(.realtimeInput(.activityStart))
        try sendAudio(client, milliseconds: 1000)
        try client.send(.realtimeInput(.activityEnd))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        let interim = seen.compactMap { $0.serverContent?.interimInputTranscription?.text }.joined()
        XCTAssertFalse(interim.isEmpty)
        XCTAssertTrue("Hello, can you hear me?".hasPrefix(interim.trimmingCharacters(in: .whitespaces)), interim)
        XCTAssertEqual(seen.inputTranscript, "Hello, can you hear me?")
    }

    /// The model talks on while a NON_BLOCKING call runs; partial results are taken; the final result is
    /// spoken when the model is idle.
    func testANonBlockingCallKeepsTheReplyTalkingAndItsResultFollowsWhenIdle() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(tools: ["get_current_time"], behavior: nil))
        try client.send(.clientContent(.userText("what time is it")))
        let first = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        let call = try XCTUnwrap(first.compactMap { $0.toolCall?.functionCalls.first }.first)
        XCTAssertTrue(call.id.hasPrefix("function-call-"), call.id)
        XCTAssertTrue(first.outputTranscript.hasPrefix("Let me look into that"), "talking while the tool runs: \(first.outputTranscript)")
        XCTAssertFalse(first.audio.isEmpty)
        XCTAssertTrue(first.contains { $0.serverContent?.interactionStatus != nil })

        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: call.id, name: call.name, response: ["progress": "asking the clock"], scheduling: .whenIdle, willContinue: true),
        ])))
        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: call.id, name: call.name, response: ["time": "10:42"], scheduling: .whenIdle),
        ])))
        let second = try await client.collect(until: "the result's turn") { $0.isTurnComplete }
        XCTAssertEqual(second.outputTranscript, "It's 10:42 right now. That's turn 1 of our chat.")
        let stats = sim.stats()
        XCTAssertEqual(stats.partialToolResults, [call.id])
        XCTAssertEqual(stats.toolResponseSchedulings, ["WHEN_IDLE"])
    }

    func testInterruptSchedulingCutsTheReplyAndSilentSaysNothing() async throws {
        let slow = SimulatorOptions(replyDelay: .zero, audioSpeedup: 1, turnCompleteAfterPlayback: true)
        let (sim, client) = try await connected(slow, setup: makeSetup(tools: ["get_current_time", "note"], behavior: "NON_BLOCKING"))
        try client.send(.clientContent(.userText("what time is it")))
        let started = try await client.collect(until: "the tool call") { $0.toolCall != nil }
        let call = try XCTUnwrap(started.last?.toolCall?.functionCalls.first)
        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: call.id, name: call.name, response: ["time": "noon"], scheduling: .interrupt),
        ])))
        let cut = try await client.collect(until: "interrupted") { $0.serverContent?.interrupted == true }
        XCTAssertFalse(cut.outputTranscript.contains("soon as it's back"), "cut before the end: \(cut.outputTranscript)")
        _ = try await client.collect(until: "the cut turn's end") { $0.isTurnComplete }
        let told = try await client.collect(until: "the result's turn", timeout: .seconds(40)) { $0.isTurnComplete }
        XCTAssertTrue(told.outputTranscript.contains("It's noon right now."), told.outputTranscript)

        try client.send(.clientContent(.userText(#"call note {"text":"x"}"#)))
        let noted = try await client.collect(until: "the note call") { $0.toolCall != nil }
        let note = try XCTUnwrap(noted.last?.toolCall?.functionCalls.first)
        try client.send(.toolResponse(ToolResponse(functionResponses: [
            FunctionResponse(id: note.id, name: note.name, response: ["ok": true], scheduling: .silent),
        ])))
        _ = try await waitForStats(sim, "the silent result") { $0.toolResponseSchedulings.count == 2 }
        XCTAssertEqual(sim.stats().toolResponseSchedulings, ["INTERRUPT", "SILENT"])
        XCTAssertFalse(sim.stats().replies.contains { $0.contains("note says") }, "a SILENT result is never spoken")
    }
}
