import Foundation
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// Turns: text, audio (manual and automatic detection), barge-in, voices, resumption.
final class SimulatorTurnTests: SimulatorTestCase {
    /// No waiting for real-time playback, for tests that are not about timing.
    let fast = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)

    func testTextTurn() async throws {
        let (sim, client) = try await connected(fast)
        try client.send(.clientContent(.userText("Tell me about the weather in Lisbon")))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }

        XCTAssertEqual(seen.inputTranscript, "Tell me about the weather in Lisbon")
        XCTAssertTrue(seen.contains { $0.serverContent?.inputTranscription?.finished == true })
        XCTAssertGreaterThan(seen.filter { $0.serverContent?.inputTranscription?.text != nil }.count, 1, "streamed in pieces")
        XCTAssertEqual(seen.outputTranscript, "You said: Tell me about the weather in Lisbon. That's turn 1 of our chat.")
        XCTAssertGreaterThan(seen.filter { $0.serverContent?.outputTranscription?.text != nil }.count, 5)

        let parts = seen.flatMap { $0.serverContent?.modelTurn?.parts ?? [] }.compactMap(\.inlineData)
        XCTAssertFalse(parts.isEmpty)
        XCTAssertTrue(parts.allSatisfy { $0.mimeType == "audio/pcm;rate=24000" })
        let audio = seen.audio
        XCTAssertEqual(audio.count % 2, 0)
        XCTAssertGreaterThan(audio.count, 24_000 * 2, "more than a second of reply audio")

        // Transcription pieces are interleaved with audio, not all sent first.
        let firstAudio = try XCTUnwrap(seen.firstIndex { !$0.audio.isEmpty })
        let lastTranscript = try XCTUnwrap(seen.lastIndex { $0.serverContent?.outputTranscription?.text != nil })
        XCTAssertLessThan(firstAudio, lastTranscript)

        let generation = try XCTUnwrap(seen.firstIndex { $0.serverContent?.generationComplete == true })
        XCTAssertEqual(generation, seen.count - 2, "generationComplete comes just before turnComplete")
        let last = try XCTUnwrap(seen.last)
        XCTAssertNotNil(last.usageMetadata, "usage arrives with turnComplete, in the same message")
        XCTAssertGreaterThan(last.usageMetadata?.responseTokenCount ?? 0, 0)
        XCTAssertTrue(seen.contains { $0.sessionResumptionUpdate?.resumable == false }, "not resumable during generation")

        let update = try await client.nextMessage()
        let resumption = try XCTUnwrap(update.sessionResumptionUpdate)
        XCTAssertEqual(resumption.resumable, true)
        XCTAssertNotNil(resumption.usableHandle)
        XCTAssertEqual(resumption.lastConsumedClientMessageIndex, 1)

        let stats = sim.stats()
        XCTAssertEqual(stats.turnsAnswered, 1)
        XCTAssertEqual(stats.userTurns, ["Tell me about the weather in Lisbon"])
    }

    func testServerFramesAreBinaryByDefaultAndTextOnRequest() async throws {
        let (_, binary) = try await connected()
        try binary.send(.realtimeInput(.text("hi")))
        guard case .message(_, let isBinary) = try await binary.next() else { return XCTFail("expected a message") }
        XCTAssertTrue(isBinary)

        let (_, text) = try await connected(SimulatorOptions(sendTextFrames: true))
        try text.send(.realtimeInput(.text("hi")))
        guard case .message(_, let isBinary2) = try await text.next() else { return XCTFail("expected a message") }
        XCTAssertFalse(isBinary2)
    }

    func testAudioIsSentFasterThanRealTime() async throws {
        let (_, client) = try await connected(SimulatorOptions(replyDelay: .zero, audioSpeedup: 8, turnCompleteAfterPlayback: true))
        try client.send(.clientContent(.userText("one two three four five six seven eight")))
        let start = ContinuousClock.now
        var audioBytes = 0
        var generationAt: Duration?
        let seen = try await client.collect(until: "turnComplete") { m in
            audioBytes += m.audio.count
            if m.serverContent?.generationComplete == true { generationAt = ContinuousClock.now - start }
            return m.isTurnComplete
        }
        let total = ContinuousClock.now - start
        let audioSeconds = Double(audioBytes) / 48_000
        let generated = try XCTUnwrap(generationAt)
        XCTAssertLessThan(generated, .seconds(audioSeconds), "all audio arrived before its real-time duration")
        XCTAssertGreaterThanOrEqual(total, .seconds(audioSeconds * 0.95), "turnComplete waits for real-time playback")
        XCTAssertTrue(seen.outputTranscript.hasSuffix("That's turn 1 of our chat."))
    }

    func testManualAudioTurn() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(automatic: false))
        try client.send(.realtimeInput(.activityStart))
        try sendAudio(client, milliseconds: 1000)
        try client.send(.realtimeInput(.activityEnd))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(seen.inputTranscript, "Hello, can you hear me?")
        XCTAssertEqual(seen.outputTranscript, "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        XCTAssertFalse(seen.audio.isEmpty)
        let stats = sim.stats()
        XCTAssertEqual(stats.audioBytesReceived, 32_000)
        XCTAssertEqual(stats.sessions.first?.audioBytesReceived, 32_000)
    }

    func testScriptedTranscriptsCycle() async throws {
        let options = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false, audioTranscripts: ["first thing", "second thing"])
        let (_, client) = try await connected(options, setup: makeSetup(automatic: false))
        var heard: [String] = []
        for _ in 0..<3 {
            try client.send(.realtimeInput(.activityStart))
            try sendAudio(client, milliseconds: 100)
            try client.send(.realtimeInput(.activityEnd))
            heard.append(try await client.collect(until: "turnComplete") { $0.isTurnComplete }.inputTranscript)
        }
        XCTAssertEqual(heard, ["first thing", "second thing", "first thing"])
    }

    func testAutomaticDetectionEndsTheTurnAfterSilence() async throws {
        let (sim, client) = try await connected(fast, setup: makeSetup(automatic: true))
        try sendAudio(client, milliseconds: 400, amplitude: 0)
        try sendAudio(client, milliseconds: 600)
        try sendAudio(client, milliseconds: 700, amplitude: 0)
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(seen.inputTranscript, "Hello, can you hear me?")
        XCTAssertEqual(sim.stats().audioBytesReceived, 1700 * 32)
    }

    func testAudioStreamEndEndsTheTurn() async throws {
        let (_, client) = try await connected(fast, setup: makeSetup(automatic: true))
        try sendAudio(client, milliseconds: 300)
        try client.send(.realtimeInput(.audioStreamEnd))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertEqual(seen.inputTranscript, "Hello, can you hear me?")
    }

    func testBargeInInterruptsTheReply() async throws {
        // Real-time audio, so the reply is still being "spoken" when the user talks.
        let (sim, client) = try await connected(SimulatorOptions(audioSpeedup: 1), setup: makeSetup(automatic: true))
        try client.send(.clientContent(.userText("Please tell me a long story about a lighthouse keeper and the sea")))
        _ = try await client.collect(until: "first reply audio") { !$0.audio.isEmpty }
        try sendAudio(client, milliseconds: 200)
        let seen = try await client.collect(until: "turnComplete after the barge-in") { $0.isTurnComplete }
        let interrupted = try XCTUnwrap(seen.firstIndex { $0.serverContent?.interrupted == true })
        XCTAssertEqual(interrupted, seen.count - 2, "interrupted comes right before turnComplete")
        XCTAssertFalse(seen.contains { $0.serverContent?.generationComplete == true }, "no generationComplete for an interrupted turn")
        XCTAssertEqual(sim.stats().interruptions, 1)

        // The user's speech becomes the next turn once they fall silent; nothing more of the old reply arrives.
        try sendAudio(client, milliseconds: 700, amplitude: 0)
        let next = try await client.collect(until: "the next turn") { $0.isTurnComplete }
        XCTAssertEqual(next.inputTranscript, "Hello, can you hear me?")
        XCTAssertFalse(next.outputTranscript.contains("lighthouse"))
        XCTAssertTrue(next.outputTranscript.hasSuffix("That's turn 2 of our chat."))
    }

    func testActivityStartInterruptsInManualMode() async throws {
        let (_, client) = try await connected(SimulatorOptions(audioSpeedup: 1), setup: makeSetup(automatic: false))
        try client.send(.clientContent(.userText("Tell me a long story about dragons and castles and knights")))
        _ = try await client.collect(until: "first reply audio") { !$0.audio.isEmpty }
        try client.send(.realtimeInput(.activityStart))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertTrue(seen.contains { $0.serverContent?.interrupted == true })
        XCTAssertFalse(seen.contains { $0.serverContent?.generationComplete == true })
    }

    func testNewTextTurnInterruptsTheReply() async throws {
        let (_, client) = try await connected(SimulatorOptions(audioSpeedup: 1))
        try client.send(.clientContent(.userText("Tell me a long story about dragons and castles and knights")))
        _ = try await client.collect(until: "first reply audio") { !$0.audio.isEmpty }
        try client.send(.clientContent(.userText("Stop")))
        let cut = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        XCTAssertTrue(cut.contains { $0.serverContent?.interrupted == true })
        let next = try await client.collect(until: "the next turn") { $0.isTurnComplete }
        XCTAssertEqual(next.inputTranscript, "Stop")
        XCTAssertTrue(next.outputTranscript.hasSuffix("That's turn 2 of our chat."))
    }

    func testVoicesHaveMeasurablyDifferentPitch() async throws {
        let byPitch = Voice.all.map(\.name).sorted { VoiceSynth.pitch(for: $0) < VoiceSynth.pitch(for: $1) }
        let low = try XCTUnwrap(byPitch.first), high = try XCTUnwrap(byPitch.last)
        var measured: [Double] = []
        for voice in [low, high] {
            let (_, client) = try await connected(
                SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false), setup: makeSetup(voice: voice))
            try client.send(.clientContent(.userText("hello")))
            let audio = try await client.collect(until: "turnComplete") { $0.isTurnComplete }.audio
            let pitch = try XCTUnwrap(PitchEstimator.estimate(pcm24k: audio))
            XCTAssertEqual(pitch, VoiceSynth.pitch(for: voice), accuracy: VoiceSynth.pitch(for: voice) * 0.05, voice)
            measured.append(pitch)
        }
        XCTAssertGreaterThan(measured[1] / measured[0], 1.5, "a voice switch is audible")
    }

    func testResumptionContinuesTheConversation() async throws {
        let options = SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false)
        let (sim, first) = try await connected(options, setup: makeSetup(voice: "Puck", automatic: false))
        try first.send(.clientContent(.userText("My name is Ada")))
        _ = try await first.collect(until: "turn 1") { $0.isTurnComplete }
        try first.send(.realtimeInput(.activityStart))
        try sendAudio(first, milliseconds: 200)
        try first.send(.realtimeInput(.activityEnd))
        _ = try await first.collect(until: "turn 2") { $0.isTurnComplete }
        let update = try await first.nextMessage()
        let handle = try XCTUnwrap(update.sessionResumptionUpdate?.usableHandle)
        first.close()

        let second = SimTestClient(url: sim.url)
        try await second.setUp(makeSetup(voice: "Charon", automatic: false, handle: handle.revealed))
        try second.send(.realtimeInput(.activityStart))
        try sendAudio(second, milliseconds: 300)
        try second.send(.realtimeInput(.activityEnd))
        let seen = try await second.collect(until: "turn 3") { $0.isTurnComplete }
        XCTAssertTrue(seen.outputTranscript.hasSuffix("That's turn 3 of our chat."), seen.outputTranscript)
        let audio = seen.audio
        XCTAssertEqual(try XCTUnwrap(PitchEstimator.estimate(pcm24k: audio)), VoiceSynth.pitch(for: "Charon"),
                       accuracy: VoiceSynth.pitch(for: "Charon") * 0.05, "the new voice is used")

        let stats = sim.stats()
        XCTAssertEqual(stats.setups.map(\.resumed), [false, true])
        XCTAssertEqual(stats.setups.map(\.voiceName), ["Puck", "Charon"])
        XCTAssertEqual(Set(stats.setups.map(\.sessionID)).count, 1)
        let session = try XCTUnwrap(stats.sessions.first)
        XCTAssertEqual(session.connections, 2)
        XCTAssertEqual(session.audioBytesReceived, 500 * 32, "audio counted across the session's connections")
        XCTAssertEqual(session.turnsAnswered, 3)
    }

    func testTextModality() async throws {
        var setup = makeSetup()
        setup.generationConfig?.responseModalities = ["TEXT"]
        let (_, client) = try await connected(setup: setup)
        try client.send(.clientContent(.userText("hi")))
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        let text = seen.compactMap { $0.serverContent?.modelTurn?.text }.joined()
        XCTAssertEqual(text, "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.")
        XCTAssertTrue(seen.audio.isEmpty)
    }

    func testConcurrentConnectionsAreIndependent() async throws {
        let sim = try await startSimulator(SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false))
        try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<4 {
                group.addTask {
                    let client = SimTestClient(url: sim.url)
                    try await client.setUp(makeSetup(voice: Voice.all[i].name))
                    try client.send(.clientContent(.userText("client \(i)")))
                    let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
                    client.close()
                    return seen.outputTranscript
                }
            }
            var replies: [String] = []
            for try await r in group { replies.append(r) }
            XCTAssertEqual(replies.sorted(), (0..<4).map { "You said: client \($0). That's turn 1 of our chat." })
        }
        XCTAssertEqual(sim.stats().sessions.count, 4)
    }
}

/// Finds the fundamental frequency of voiced 24 kHz audio by autocorrelation over its loudest stretch.
enum PitchEstimator {
    static func estimate(pcm24k data: Data) -> Double? {
        let samples: [Double] = stride(from: 0, to: data.count - 1, by: 2).map {
            Double(Int16(bitPattern: UInt16(data[data.startIndex + $0]) | UInt16(data[data.startIndex + $0 + 1]) << 8))
        }
        let window = 4800
        guard samples.count > window * 2 else { return nil }
        // The loudest 200 ms: the middle of a syllable.
        var best = 0, bestEnergy = 0.0
        for start in stride(from: 0, to: samples.count - window, by: 600) {
            let e = samples[start..<start + window].reduce(0) { $0 + $1 * $1 }
            if e > bestEnergy { (best, bestEnergy) = (start, e) }
        }
        let x = Array(samples[best..<best + window])
        let minLag = 24_000 / 300, maxLag = 24_000 / 80
        var corr = [Double](repeating: 0, count: maxLag + 1)
        for lag in minLag...maxLag {
            var s = 0.0
            for i in 0..<(window - lag) { s += x[i] * x[i + lag] }
            corr[lag] = s / Double(window - lag)
        }
        guard let peak = corr[minLag...maxLag].max(), peak > 0 else { return nil }
        // The first lag that comes close to the best: the period, not a multiple of it.
        for lag in minLag...maxLag where corr[lag] >= 0.9 * peak {
            var l = lag
            while l + 1 <= maxLag, corr[l + 1] > corr[l] { l += 1 }
            // Parabolic interpolation around the local maximum.
            let a = corr[l - 1], b = corr[l], c = l + 1 <= maxLag ? corr[l + 1] : corr[l]
            let denom = a - 2 * b + c
            let offset = denom != 0 ? 0.5 * (a - c) / denom : 0
            return 24_000 / (Double(l) + offset)
        }
        return nil
    }
}
