import Foundation
import Live
import LiveSimulator
import ParleyTime
import Synchronization
import XCTest

/// A Live session against the simulator over a real loopback WebSocket: start, collect, wait.
class LiveSessionTestCase: XCTestCase {
    var simulator: LiveSimulator!

    override func tearDown() async throws {
        try? await simulator?.stop()
        simulator = nil
    }

    /// A healthy simulator whose turns end once the reply is generated, not after its audio's real-time length
    /// (about 3 s a turn): for the tests of what is sent, held and answered rather than of playback timing.
    var quickTurns: SimulatorOptions { SimulatorOptions(turnCompleteAfterPlayback: false) }

    func startSimulator(_ options: SimulatorOptions = SimulatorOptions(), time: TimeSource = .monotonic) async throws -> String {
        simulator = LiveSimulator(options: options, time: time)
        _ = try await simulator.start()
        return simulator.url
    }

    /// Tools are BLOCKING (3.8 defaults to NON_BLOCKING, where the model talks on while a tool runs).
    func setup(voice: String = "Puck", manual: Bool = false, tools: [String] = []) -> Setup {
        Setup(
            model: "models/\(LiveModel.defaultID)",
            generationConfig: GenerationConfig(speechConfig: SpeechConfig(voiceName: voice)),
            tools: tools.isEmpty ? nil : [Tool(functionDeclarations: tools.map { FunctionDeclaration(name: $0, description: $0, parameters: ["type": "object"], behavior: "BLOCKING") })],
            realtimeInputConfig: RealtimeInputConfig(automaticActivityDetection: AutomaticActivityDetection(disabled: manual ? true : nil)),
            inputAudioTranscription: EmptyObject(), outputAudioTranscription: EmptyObject(),
            sessionResumption: SessionResumptionConfig())
    }

    func session(_ url: String, _ setup: Setup, credential: Credential = .none, reconnects: Bool = true,
                 policy base: ConnectionMachine.Policy = .init(), time: TimeSource = .monotonic) -> (LiveSession, Audio) {
        var policy = base
        policy.reconnects = reconnects
        let audio = Audio()
        let s = LiveSession(
            configuration: LiveConfiguration(endpoint: url, credential: credential, setup: setup, policy: policy),
            playback: { audio.handle($0) }, time: time)
        return (s, audio)
    }

    /// Collects events until `until` returns true (inclusive) or the timeout passes.
    func collect(_ s: LiveSession, timeout: Double = 20, until: @escaping @Sendable (LiveEvent, [LiveEvent]) -> Bool) async -> [LiveEvent] {
        let box = EventBox()
        let task = Task {
            for await e in s.events {
                let done = box.events.withLock { b -> Bool in
                    b.append(e)
                    return until(e, b)
                }
                if done { return }
            }
        }
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
            task.cancel()
        }
        _ = await task.value
        timer.cancel()
        return box.events.withLock { $0 }
    }

    func turn(_ s: LiveSession, _ action: () -> Void) async -> [LiveEvent] {
        action()
        return await collect(s) { e, _ in if case .turnComplete = e { true } else if case .failed = e { true } else { false } }
    }

    func text(_ events: [LiveEvent], input: Bool) -> String {
        events.map { e -> String in
            switch e {
            case .inputTranscription(let t, _) where input: t
            case .outputTranscription(let t, _) where !input: t
            default: ""
            }
        }.joined()
    }

    func tone(ms: Int, hz: Double = 220, amplitude: Double = 8000) -> [Data] {
        let samples = (0..<(16 * ms)).map { i in Int16(amplitude * sin(2 * .pi * hz * Double(i) / 16000)) }
        return stride(from: 0, to: samples.count, by: 320).map { start in
            samples[start..<min(start + 320, samples.count)].withUnsafeBytes { Data($0) }
        }
    }

    func waitLive(_ s: LiveSession) async -> [LiveEvent] {
        await collect(s) { e, _ in
            switch e {
            case .setupComplete, .failed: true
            default: false
            }
        }
    }
}
