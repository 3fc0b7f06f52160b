import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// The simulator rejects what the real service rejects, with the real close codes and reasons.
final class SimulatorCheckTests: SimulatorTestCase {
    static let invalidArgument = "Request contains an invalid argument."

    func testSetupIsAnsweredWithSetupComplete() async throws {
        let (sim, client) = try await connected(setup: makeSetup(voice: "Kore"))
        let stats = sim.stats()
        XCTAssertEqual(stats.setups.count, 1)
        XCTAssertEqual(stats.setups.first?.voiceName, "Kore")
        XCTAssertEqual(stats.setups.first?.resumed, false)
        XCTAssertTrue(sim.url.hasSuffix("/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"))
        client.close()
        _ = try await waitForStats(sim, "the client's close") { $0.clientCloseCodes == [1000] }
    }

    func testFirstMessageMustBeSetup() async throws {
        let sim = try await startSimulator()
        let client = SimTestClient(url: sim.url)
        try client.send(.realtimeInput(.text("hello")))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testModelMustBeAResourceName() async throws {
        let sim = try await startSimulator()
        let client = SimTestClient(url: sim.url)
        try client.send(.setup(makeSetup(model: LiveModel.defaultID)))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testUnknownModelIsNotFound() async throws {
        let sim = try await startSimulator()
        let client = SimTestClient(url: sim.url)
        try client.send(.setup(makeSetup(model: "models/gemini-2.0-flash-live-001")))
        try await assertClosed(
            client, code: 1008,
            reason: "models/gemini-2.0-flash-live-001 is not found for API version v1beta, or is not supported for bidiGenerateContent")
    }

    func testSimModelsAreAccepted() async throws {
        let (sim, _) = try await connected(setup: makeSetup(model: "models/sim-anything"))
        XCTAssertEqual(sim.stats().setups.first?.model, "models/sim-anything")
    }

    func testWrongAPIKeyIsRejectedAfterTheUpgrade() async throws {
        let sim = try await startSimulator(SimulatorOptions(apiKey: "right-key"))
        let client = SimTestClient(url: sim.url, apiKey: "wrong-key")
        try client.send(.setup(makeSetup()))
        try await assertClosed(client, code: 1007, reason: "API key not valid. Please pass a valid API key.")
        XCTAssertEqual(sim.stats().connectionsAccepted, 1, "the WebSocket upgrade itself succeeds")
    }

    func testMissingAPIKeyIsRejected() async throws {
        let sim = try await startSimulator(SimulatorOptions(apiKey: "right-key"))
        let client = SimTestClient(url: sim.url)
        try client.send(.setup(makeSetup()))
        try await assertClosed(client, code: 1007, reason: "API key not valid. Please pass a valid API key.")
    }

    func testRightAPIKeyAndEphemeralTokenAreAccepted() async throws {
        let sim = try await startSimulator(SimulatorOptions(apiKey: "right-key"))
        let a = SimTestClient(url: sim.url, apiKey: "right-key")
        try await a.setUp(makeSetup())
        let b = SimTestClient(url: sim.url, headers: [("Authorization", "Token right-key")])
        try await b.setUp(makeSetup())
    }

    func testMediaChunksAreRejected() async throws {
        let (_, client) = try await connected()
        client.sendRaw(#"{"realtimeInput":{"mediaChunks":[{"mimeType":"audio/pcm;rate=16000","data":"AAAA"}]}}"#)
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testActivityStartWithAutomaticDetectionIsRejected() async throws {
        let (_, client) = try await connected(setup: makeSetup(automatic: true))
        try client.send(.realtimeInput(.activityStart))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testAudioStreamEndWithManualDetectionIsRejected() async throws {
        let (_, client) = try await connected(setup: makeSetup(automatic: false))
        try client.send(.realtimeInput(.audioStreamEnd))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testInvalidJSONIsRejected() async throws {
        let (_, client) = try await connected()
        client.sendRaw(#"{"clientContent": {"turns": "#)
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testTwoTopLevelKeysAreRejected() async throws {
        let (_, client) = try await connected()
        client.sendRaw(#"{"clientContent":{"turnComplete":true},"realtimeInput":{"text":"hi"}}"#)
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testSecondSetupIsRejected() async throws {
        let (_, client) = try await connected()
        try client.send(.setup(makeSetup()))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testUnknownVoiceIsRejected() async throws {
        let sim = try await startSimulator()
        let client = SimTestClient(url: sim.url)
        try client.send(.setup(makeSetup(voice: "Nobody")))
        try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
    }

    func testUnknownFieldsInsideKnownMessagesAreIgnored() async throws {
        let sim = try await startSimulator(SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false))
        let client = SimTestClient(url: sim.url)
        client.sendRaw(#"{"setup":{"model":"models/sim-x","futureField":{"a":1},"outputAudioTranscription":{}}}"#)
        let first = try await client.nextMessage()
        XCTAssertNotNil(first.setupComplete)
        client.sendRaw(#"{"clientContent":{"turns":[{"role":"user","parts":[{"text":"hi","extra":1}]}],"turnComplete":true,"more":2}}"#)
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertTrue(seen.outputTranscript.contains("turn 1"))
    }

    func testBadResumptionHandles() async throws {
        let sim = try await startSimulator()
        let malformed = SimTestClient(url: sim.url)
        try malformed.send(.setup(makeSetup(handle: "garbage")))
        try await assertClosed(malformed, code: 1007, reason: Self.invalidArgument)
        let unknown = SimTestClient(url: sim.url)
        try unknown.send(.setup(makeSetup(handle: "simh-999-1-42")))
        try await assertClosed(unknown, code: 1008, reason: "Requested entity was not found")
    }

    func testPlainHTTPGetsAnAnswer() async throws {
        let sim = try await startSimulator()
        let port = try XCTUnwrap(sim.port)
        let (data, response) = try await URLSession.shared.data(from: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/")))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 426)
        XCTAssertFalse(data.isEmpty)
    }

    func testLargeFramesAreAccepted() async throws {
        let (sim, client) = try await connected(setup: makeSetup(automatic: false))
        let big = Data(count: 3 << 20)  // 3 MiB of silence: a 4 MiB frame once base64-encoded
        try client.send(.realtimeInput(.micAudio(big)))
        _ = try await waitForStats(sim, "the large frame") { $0.audioBytesReceived == big.count }
    }

    func testGarbageFramesCloseTheConnectionButNotTheServer() async throws {
        let sim = try await startSimulator()
        var generator = SystemRandomNumberGenerator()
        for n in [0, 1, 17, 4000] {
            let client = SimTestClient(url: sim.url)
            let junk = String((0..<n).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &generator))) })
            client.sendRaw(junk)
            try await assertClosed(client, code: 1007, reason: Self.invalidArgument)
        }
        let client = SimTestClient(url: sim.url)
        try await client.setUp(makeSetup())
    }
}
