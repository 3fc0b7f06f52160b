import Foundation
import ParleyTime
import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The canceller on a real echo path through a private PulseAudio daemon: what parley plays to a speaker
/// sink comes back into a mic sink through `module-loopback` (real latency, resampling and jitter), while the
/// user's speech is played into the same mic sink. Needs PARLEY_TEST_PULSE_SERVER.
final class EchoCancellerLiveTests: XCTestCase {
    func testLoopbackEchoIsCancelledAndTheNearEndKept() throws {
        let server = try testPulseServer()
        let f = try EchoFixtures()
        let tag = "parley_aec_\(getpid())"
        let context = try PulseContext(server: server, timeout: 5)
        var modules: [UInt32] = []
        defer { for m in modules.reversed() { _ = try? context.unloadModule(m, timeout: 5) } }
        modules.append(try context.loadModule("module-null-sink", arguments: "sink_name=\(tag)_speaker", timeout: 5))
        modules.append(try context.loadModule("module-null-sink", arguments: "sink_name=\(tag)_mic", timeout: 5))
        modules.append(try context.loadModule(
            "module-loopback", arguments: "source=\(tag)_speaker.monitor sink=\(tag)_mic latency_msec=60 "
                + "source_dont_move=true sink_dont_move=true", timeout: 5))

        let canceller = try WebRTCCanceller()
        var co = PulseCapture.Options(server: server, device: "\(tag)_mic.monitor")
        co.canceller = canceller
        let cleaned = PulseCapture(options: co)
        let raw = PulseCapture(options: .init(server: server, device: "\(tag)_mic.monitor"))
        var so = PulsePlayback.Options(server: server, device: "\(tag)_speaker")
        so.canceller = canceller
        let speaker = PulsePlayback(options: so)
        var uo = PulsePlayback.Options(server: server, device: "\(tag)_mic")
        uo.format = .capture
        let user = PulsePlayback(options: uo)
        let cleanedChunks = ChunkRecorder(), rawChunks = ChunkRecorder()
        for (c, r) in [(cleaned, cleanedChunks), (raw, rawChunks)] {
            c.setGate(open: true)
            try c.open { r.append($0) }
        }
        try speaker.open()
        try user.open()
        defer {
            speaker.close()
            user.close()
            cleaned.close()
            raw.close()
        }
        // The first write after idle can stall: pre-roll silence on both and wait until it has played.
        for p in [speaker, user] {
            p.write([Int16](repeating: 0, count: p.format.sampleCount(milliseconds: 300)))
            p.drain()
            XCTAssertTrue(p.waitUntilIdle(timeout: 15), "pre-roll played")
        }

        // The model speaks 0–10 s; the user speaks over it from 6 s, then alone from 11 s.
        let farSeconds = 10.0
        let nearFirst = 6.0, nearSecond = 11.0
        let nearLength = Double(f.near.count) / 16_000
        let t0 = TimeSource.monotonic.nanoseconds()
        speaker.write(Array(f.far24.prefix(Int(farSeconds * 24_000))))
        speaker.drain()
        var userTrack = [Int16](repeating: 0, count: Int(nearFirst * 16_000))
        userTrack += f.near
        userTrack += [Int16](repeating: 0, count: Int(nearSecond * 16_000) - userTrack.count)
        userTrack += f.near
        user.write(userTrack)
        user.drain()
        let end = nearSecond + nearLength + 0.5
        XCTAssertTrue(cleanedChunks.wait(timeout: end + 15) { ($0.last?.timestamp ?? 0) >= t0 + UInt64(end * 1e9) },
                      "captured to the end")

        func power(_ r: ChunkRecorder, _ from: Double, _ to: Double) -> Double {
            let a = t0 + UInt64(from * 1e9), b = t0 + UInt64(to * 1e9)
            let samples = r.all.filter { $0.timestamp >= a && $0.timestamp < b }.flatMap(\.samples)
            return Signals.rmsDB(samples[...])
        }
        let farOnly = (3.0, nearFirst - 0.1)
        let erle = power(rawChunks, farOnly.0, farOnly.1) - power(cleanedChunks, farOnly.0, farOnly.1)
        let nearAlone = power(rawChunks, nearSecond, nearSecond + nearLength + 0.3)
        let nearAloneCleaned = power(cleanedChunks, nearSecond, nearSecond + nearLength + 0.3)
        let doubleTalkRaw = power(rawChunks, nearFirst, nearFirst + nearLength + 0.3)
        let doubleTalk = power(cleanedChunks, nearFirst, nearFirst + nearLength + 0.3)
        let stats = canceller.statistics
        print(String(format: "live loopback: echo %.1f dBFS → %.1f dBFS (ERLE %.1f dB); double talk %.1f → %.1f dBFS "
                     + "(near alone %.1f dBFS raw, %.1f cleaned); far offset %d ms, %d realignments, CPU %.2f %% of a core",
                     power(rawChunks, farOnly.0, farOnly.1), power(cleanedChunks, farOnly.0, farOnly.1), erle,
                     doubleTalkRaw, doubleTalk, nearAlone, nearAloneCleaned, stats.farOffsetMilliseconds,
                     stats.realignments, 100 * stats.cpuFraction))
        XCTAssertGreaterThan(erle, 12, "the far end is cancelled")
        XCTAssertGreaterThan(nearAloneCleaned, nearAlone - 3, "the near end alone passes")
        XCTAssertGreaterThan(doubleTalk, nearAlone - 8, "the near end is kept in double talk")

        // The next reply, after playback ran dry and restarted: the far end is placed again from the latency
        // figures and must still line up with its echo.
        let t1 = TimeSource.monotonic.nanoseconds()
        speaker.write(Array(f.far24.prefix(Int(4 * 24_000))))
        speaker.drain()
        XCTAssertTrue(cleanedChunks.wait(timeout: 20) { ($0.last?.timestamp ?? 0) >= t1 + 4_200_000_000 }, "captured")
        func power2(_ r: ChunkRecorder, _ from: Double, _ to: Double) -> Double {
            let a = t1 + UInt64(from * 1e9), b = t1 + UInt64(to * 1e9)
            return Signals.rmsDB(r.all.filter { $0.timestamp >= a && $0.timestamp < b }.flatMap(\.samples)[...])
        }
        let restartERLE = power2(rawChunks, 0.2, 3.8) - power2(cleanedChunks, 0.2, 3.8)
        let firstSecond = power2(rawChunks, 0.2, 1.2) - power2(cleanedChunks, 0.2, 1.2)
        print(String(format: "after a restart: ERLE %.1f dB (first second %.1f dB), cleaned level %.1f dBFS",
                     restartERLE, firstSecond, power2(cleanedChunks, 0.2, 3.8)))
        XCTAssertGreaterThan(restartERLE, 12, "still cancelled after playback restarts")
    }
}
