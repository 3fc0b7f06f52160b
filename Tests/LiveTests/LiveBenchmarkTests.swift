import Foundation
import ParleyLock
import LiveTesting
import XCTest

@testable import Live

/// Numbers, not assertions: run with `PARLEY_BENCH=1 swift test -c release --filter LiveBenchmarkTests`.
final class LiveBenchmarkTests: XCTestCase {
    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1 to run benchmarks") }
    }

    func nanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func report(_ name: String, _ samples: [UInt64]) {
        let s = samples.sorted()
        func q(_ p: Double) -> Double { Double(s[min(s.count - 1, Int(Double(s.count) * p))]) / 1e6 }
        print(String(format: "bench: %@: p50 %.3f ms, p99 %.3f ms, max %.3f ms (n=%d)", name, q(0.5), q(0.99), q(1.0), s.count))
    }

    func testCodecThroughput() throws {
        let codec = LiveCodec()
        let chunk = Data((0..<640).map { UInt8($0 & 0xFF) })
        let n = 20_000
        var t = nanos()
        for _ in 0..<n { _ = try codec.encode(.realtimeInput(.micAudio(chunk))) }
        let encode = Double(n) / (Double(nanos() - t) / 1e9)
        let reply = ServerMessage(serverContent: ServerContent(
            modelTurn: Content(role: "model", parts: [Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: Data(count: 9600)))]),
            outputTranscription: Transcription(text: "a few words")))
        let frame = Data(try codec.encode(reply).utf8)
        let m = 5_000
        t = nanos()
        for _ in 0..<m { _ = try codec.decodeServer(frame) }
        let decode = Double(m) / (Double(nanos() - t) / 1e9)
        print(String(format: "bench: encode 20 ms mic frames: %.0f frames/s (%.1f µs each)", encode, 1e6 / encode))
        print(String(format: "bench: decode 200 ms reply-audio frames (%d bytes): %.0f frames/s (%.1f µs each)", frame.count, decode, 1e6 / decode))
    }

    func testDirectPathLatencies() async throws {
        let transport = FakeTransport()
        let handed = Locked<[UInt64]>([])
        let session = LiveSession(
            configuration: LiveConfiguration(endpoint: "ws://fake", credential: .none, setup: Setup(model: "models/x")),
            transport: transport,
            playback: { c in if case .play = c { handed.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) } } })
        session.start()
        try await transport.waitForConnection()
        while transport.sentCount == 0 { try await Task.sleep(for: .milliseconds(5)) }  // setup went out
        transport.deliver(#"{"setupComplete":{}}"#)
        while session.state.isLive == false { try await Task.sleep(for: .milliseconds(5)) }

        // Mic: sendAudio → text frame handed to the socket writer.
        let chunk = Data(count: 640)
        var mic: [UInt64] = []
        for _ in 0..<3000 {
            let before = transport.sentCount
            let t0 = nanos()
            session.sendAudio(chunk)
            guard let t1 = transport.sendTime(after: before) else { continue }
            mic.append(t1 - t0)
        }
        report("mic chunk → frame written to the socket", mic)

        // Speaker: frame received → handed to playback.
        let frame = try LiveCodec().encode(ServerMessage(serverContent: ServerContent(
            modelTurn: Content(parts: [Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: Data(count: 4800)))]))))
        var spk: [UInt64] = []
        for _ in 0..<3000 {
            let t0 = nanos()
            transport.deliver(frame)
            if let t1 = handed.withLock({ $0.popLast() }) { spk.append(t1 - t0) }
        }
        report("server audio frame received → handed to playback", spk)
        session.close()
    }
}

extension ConnectionMachine.State {
    var isLive: Bool { if case .live = self { true } else { false } }
}
