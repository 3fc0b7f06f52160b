import ParleyTime
import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// Numbers, not assertions: `PARLEY_BENCH=1 PARLEY_TEST_PULSE_SERVER=… swift test --filter
/// PulseAudioTests.PulseBenchmarkTests` (optionally `PARLEY_BENCH_SECONDS`, default 30).
final class PulseBenchmarkTests: XCTestCase {
    func testBenchmarkAudioLatency() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else {
            throw XCTSkip("set PARLEY_BENCH=1 to run the audio benchmark")
        }
        let server = try testPulseServer()
        let seconds = Double(ProcessInfo.processInfo.environment["PARLEY_BENCH_SECONDS"] ?? "") ?? 30
        let tlength = 80

        // Full duplex: capture the monitor with the gate open while playback is fed 20 ms chunks at real time.
        let handoff = HandoffTimes()
        let rec = ChunkRecorder()
        let capture = PulseCapture(options: .init(server: server, device: nullMonitor))
        capture.setGate(open: true)
        try capture.open { chunk in
            handoff.append(TimeSource.monotonic.nanoseconds() - chunk.timestamp)  // pa_simple_read return → consumer
            rec.append(chunk)
        }
        var po = PulsePlayback.Options(server: server, device: nullSink, targetLatencyMilliseconds: tlength)
        po.recordTimings = true
        let playback = PulsePlayback(options: po)
        try playback.open()
        defer {
            playback.close()
            capture.close()
        }
        playback.write([Int16](repeating: 0, count: 24_000 * 3 / 10))
        playback.drain()
        _ = playback.waitUntilIdle(timeout: 15)
        handoff.reset()

        let tone = Signals.sine(frequency: 440, rate: 24_000, seconds: 1.0, amplitude: 0.3)
        let chunk = 480  // 20 ms
        let cap0 = capture.stats.threadCPUSeconds
        let play0 = playback.stats.threadCPUSeconds
        let start = TimeSource.monotonic.nanoseconds()
        var next = start
        var latencies: [Double] = []
        var k = 0
        // Real time, as a live stream would arrive when the server is not ahead; the 25 ms restart padding
        // is the only cushion, so the server buffer stays below tlength and writes do not wait for room.
        while (Double(TimeSource.monotonic.nanoseconds() - start) / 1e9) < seconds {
            next += 20_000_000
            let now = TimeSource.monotonic.nanoseconds()
            if next > now { Thread.sleep(forTimeInterval: Double(next - now) / 1e9) }  // pacing the fake network
            let offset = (k * chunk) % (tone.count - chunk)
            playback.write(Array(tone[offset..<(offset + chunk)]))
            k += 1
            if k % 10 == 0 { latencies.append(playback.stats.latencySeconds) }
        }
        playback.drain()
        _ = playback.waitUntilIdle(timeout: 10)
        let elapsed = (Double(TimeSource.monotonic.nanoseconds() - start) / 1e9)
        let pstats = playback.stats
        let capCPU = capture.stats.threadCPUSeconds - cap0
        let playCPU = pstats.threadCPUSeconds - play0
        let captureTimes = handoff.all

        // Flush → silence, five times, at the default tlength.
        var flushMs: [Double] = []
        var flushCallMs: [Double] = []
        var fullLatencies: [Double] = []
        for _ in 0..<5 {
            playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 3.0, amplitude: 0.5))
            let t = TimeSource.monotonic.nanoseconds()
            guard rec.wait(timeout: 10, until: { cs in
                cs.filter { $0.timestamp > t && $0.level.rmsDBFS > -12 }.count >= 15
            }) else { continue }
            fullLatencies.append(playback.stats.latencySeconds)
            let flushAt = TimeSource.monotonic.nanoseconds()
            playback.flush()
            _ = rec.wait(timeout: 10) { ($0.last?.timestamp ?? 0) > flushAt + 400_000_000 }
            let tl = Timeline(chunks: rec.all)
            if let span = tl.loudSpan(from: tl.index(at: t)) {
                flushMs.append((Double(tl.time(ofSample: span.upperBound)) - Double(flushAt)) / 1e6)
            }
            if let last = playback.stats.flushNanos.last { flushCallMs.append(Double(last) / 1e6) }
        }

        func ms(_ ns: Double) -> String { String(format: "%.3f ms", ns / 1e6) }
        let hand = pstats.handInToWrittenNanos
        print("""
        === parley audio benchmark (\(String(format: "%.1f", elapsed)) s full duplex, tlength \(tlength) ms) ===
        capture: pa_simple_read return → consumer: p50 \(ms(percentile(captureTimes, 0.5))) \
        p99 \(ms(percentile(captureTimes, 0.99))) max \(ms(percentile(captureTimes, 1))) (\(captureTimes.count) chunks)
        playback: write() → pa_simple_write returned: p50 \(ms(percentile(hand, 0.5))) \
        p99 \(ms(percentile(hand, 0.99))) max \(ms(percentile(hand, 1))) (\(hand.count) blocks)
        playback: pa_simple_get_latency: mean \(String(format: "%.1f", latencies.reduce(0, +) / Double(max(1, latencies.count)) * 1000)) ms, \
        max \(String(format: "%.1f", (latencies.max() ?? 0) * 1000)) ms while fed at real time; \
        \(fullLatencies.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ")) ms with a full buffer; \
        underruns \(pstats.underruns)
        flush → silence on the monitor: \(flushMs.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms; \
        flush() → server flush done: \(flushCallMs.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms
        CPU per minute of full duplex: capture thread \(String(format: "%.3f", capCPU / elapsed * 60)) s, \
        playback thread \(String(format: "%.3f", playCPU / elapsed * 60)) s \
        (\(String(format: "%.3f", (capCPU + playCPU) / elapsed * 100)) % of one core)
        """)
    }
}

final class HandoffTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [UInt64] = []
    func append(_ t: UInt64) { lock.lock(); times.append(t); lock.unlock() }
    func reset() { lock.lock(); times.removeAll(); lock.unlock() }
    var all: [UInt64] { lock.lock(); defer { lock.unlock() }; return times }
}
