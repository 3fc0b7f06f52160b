import Foundation
import ParleyTime
import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The in-process echo canceller on real speech (espeak-ng) through a synthetic room.
final class EchoCancellerTests: XCTestCase {
    func testCancelsEchoAndKeepsTheNearEndInDoubleTalk() throws {
        let f = try EchoFixtures()
        for delay in [30, 150] {
            let r = try EchoScenario(delayMilliseconds: delay, echoGainDB: -6)
                .run(far24: f.far24, far16: f.far16, near: f.near, ir: f.ir, settings: .init())
            XCTAssertGreaterThan(r.erleDB, 15, "echo delayed \(delay) ms is cancelled from 2 s on")
            XCTAssertGreaterThan(r.steadyERLEDB, 20, "echo delayed \(delay) ms is cancelled once settled")
            XCTAssertGreaterThan(r.nearGainDB, -8, "the near end survives double talk (delay \(delay) ms)")
            XCTAssertLessThan(r.nearGainDB, 3, "nothing is amplified (delay \(delay) ms)")
        }
    }

    func testPassesTheMicThroughWhenInactive() throws {
        let canceller = try WebRTCCanceller()
        canceller.isActive = false
        let tone = Signals.sine(frequency: 300, rate: 16_000, seconds: 0.02, amplitude: 0.2)
        var samples = tone
        canceller.process(&samples, capturedFrom: 1_000_000_000)
        XCTAssertEqual(samples, tone)
        XCTAssertEqual(canceller.statistics.framesProcessed, 0)
    }

    /// With nothing played or queued for a second the mic passes through untouched (the idle open mic costs no
    /// processing); a reply queued to play starts the processing before its first sample is heard.
    func testIdleMicPassesThroughUntilAReplyIsQueued() throws {
        let canceller = try WebRTCCanceller()
        let chunk = 320  // 20 ms at 16 kHz
        let tone = Signals.sine(frequency: 300, rate: 16_000, seconds: 3, amplitude: 0.2)
        var t: UInt64 = 10_000_000_000
        func feed(_ range: Range<Int>) -> [Int16] {
            var out: [Int16] = []
            for k in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
                var samples = Array(tone[k..<(k + chunk)])
                canceller.process(&samples, capturedFrom: t)
                t += 20_000_000
                out += samples
            }
            return out
        }
        XCTAssertEqual(feed(0..<16_000), Array(tone[0..<16_000]), "nothing ever played: passed as captured")
        XCTAssertEqual(canceller.statistics.framesPassedIdle, 100)
        XCTAssertEqual(canceller.statistics.processingSeconds, 0, "chunks passed through are not timed")
        // A reply written now is heard 200 ms from now: processing starts at once, on silence.
        let reply = Signals.sine(frequency: 1000, rate: 24_000, seconds: 0.5, amplitude: 0.3)
        reply.withUnsafeBufferPointer { canceller.played($0, heardFrom: t + 200_000_000) }
        _ = feed(16_000..<19_200)  // 200 ms, before the reply is heard
        XCTAssertEqual(canceller.statistics.framesPassedIdle, 100, "processing while the reply is only queued")
        _ = feed(19_200..<48_000)  // the reply (0.5 s), then 1.3 s of nothing
        let stats = canceller.statistics
        XCTAssertEqual(stats.framesProcessed, 300)
        XCTAssertGreaterThan(stats.framesWithFarEnd, 45)
        XCTAssertGreaterThan(stats.processingSeconds, 0, "chunks WebRTC processed are timed")
        // 1.3 s of nothing after the reply, the first second of it processed (not converged): 30 frames passed.
        XCTAssertEqual(stats.framesPassedIdle, 100 + 30, "a second after the reply: passing through again")
    }

    /// Once the canceller has converged, the mic passes through again 0.3 s after the far end falls quiet (the
    /// echo's place is known); before, only after a second.
    func testConvergedCancellerStopsProcessingSoonAfterTheReply() throws {
        let canceller = try WebRTCCanceller()
        let chunk = 320
        let room = Signals.sine(frequency: 300, rate: 16_000, seconds: 6, amplitude: 0.01)
        var t: UInt64 = 10_000_000_000
        var k = 0
        func feed(seconds: Double) {
            for _ in 0..<Int(seconds * 50) {
                var samples = Array(room[k..<(k + chunk)])
                canceller.process(&samples, capturedFrom: t)
                t += 20_000_000
                k += chunk
            }
        }
        let reply = Signals.sine(frequency: 1000, rate: 24_000, seconds: 2.5, amplitude: 0.3)
        reply.withUnsafeBufferPointer { canceller.played($0, heardFrom: t) }
        feed(seconds: 2.5)
        XCTAssertTrue(canceller.isConverged)
        let before = canceller.statistics
        XCTAssertEqual(before.framesPassedIdle, 0)
        feed(seconds: 1.5)
        let after = canceller.statistics
        XCTAssertEqual(after.framesWithFarEnd, before.framesWithFarEnd, "the reply was over (no lookahead)")
        // The far end given is the mic's moment: 320 ms of tail, then passing through.
        XCTAssertEqual(after.framesPassedIdle, 150 - 32, "processed for 0.32 s after the reply, then passed through")
        XCTAssertEqual(WebRTCCanceller.idleAfterFrames(converged: false, settings: .init()), 100)
    }

    /// A user talking over the reply: their own syllable onsets follow far onsets by chance, a few at one lag and
    /// as many at another. Taken for the echo they re-pointed the far end 40 ms early (echo 70 ms late, talking
    /// from 5 s) or 370 ms late (echo 60 ms late, talking from 6.5 s, after which the canceller removed 4 dB),
    /// and each re-point restarted its convergence (the lookahead was 40 ms then; these are its scenarios). An
    /// echo that really is out of the canceller's reach (10 ms before the far end it is given) is still found
    /// and re-pointed once.
    func testTalkingOverTheReplyDoesNotRePointTheFarEnd() throws {
        let f = try EchoFixtures()
        var settings = WebRTCCanceller.Settings()
        settings.lookaheadMilliseconds = 40
        for (delay, gain, nearStart) in [(70, -12.0, 5.0), (60, -8.0, 6.5), (80, -12.0, 6.5)] {
            let r = try EchoScenario(delayMilliseconds: delay, echoGainDB: gain, nearStart: nearStart)
                .run(far24: f.far24, far16: f.far16, near: f.near, ir: f.ir, settings: settings)
            let label = "echo \(delay) ms late, \(gain) dB, the user talking from \(nearStart) s"
            XCTAssertEqual(r.realignments, 0, label)
            XCTAssertEqual(r.farOffsetMilliseconds, 40, label)
            XCTAssertGreaterThan(r.steadyERLEDB, 30, label)
        }
        let early = try EchoScenario(delayMilliseconds: 30, echoGainDB: -8, nearStart: 6.5)
            .run(far24: f.far24, far16: f.far16, near: f.near, ir: f.ir, settings: settings)
        XCTAssertEqual(early.realignments, 1, "an echo 10 ms before its far end is re-pointed")
        XCTAssertEqual(early.farOffsetMilliseconds, 0)
        XCTAssertGreaterThan(early.steadyERLEDB, 30)
    }

    /// An echo found ahead of where the far end should put it, with the far end already taken at the moment it
    /// is heard (offset 0, the least there is): re-pointing could not move it, so nothing counts as a re-point
    /// and convergence is not restarted. Here the target is set to 60 ms so the echo, on time, reads 60 ms early.
    func testAnEchoAheadOfTheFarEndWithNothingToMoveIsNotRePointed() throws {
        let f = try EchoFixtures()
        var settings = WebRTCCanceller.Settings()
        settings.targetEchoDelayMilliseconds = 60
        let r = try EchoScenario(delayMilliseconds: 0, echoGainDB: -8, nearStart: 6)
            .run(far24: f.far24, far16: f.far16, near: f.near, ir: f.ir, settings: settings)
        XCTAssertEqual(r.farOffsetMilliseconds, 0)
        XCTAssertEqual(r.realignments, 0, "nothing moved, nothing restarted")
    }

    /// Numbers, not assertions: `PARLEY_BENCH=1 swift test --filter PulseAudioTests.EchoCancellerTests`.
    func testBenchmarkEchoCancellation() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else {
            throw XCTSkip("set PARLEY_BENCH=1 to run the echo cancellation benchmark")
        }
        let f = try EchoFixtures()
        let env = ProcessInfo.processInfo.environment
        var settings = WebRTCCanceller.Settings()
        if let v = env["PARLEY_AEC_LOOKAHEAD_MS"].flatMap(Int.init) { settings.lookaheadMilliseconds = v }
        if let v = env["PARLEY_AEC_REPORTED_MS"].flatMap(Int.init) { settings.reportedDelayMilliseconds = v }
        if let v = env["PARLEY_AEC_SUPPRESSION"].flatMap(Int32.init).flatMap(WebRTCAudioProcessing.Settings.Suppression.init) {
            settings.processing.suppression = v
        }
        if env["PARLEY_AEC_NS"] == "0" { settings.processing.noiseSuppression = nil }
        if env["PARLEY_AEC_AGC"] == "1" { settings.processing.gainControl = true }
        if env["PARLEY_AEC_EXTENDED"] == "0" { settings.processing.extendedFilter = false }
        if env["PARLEY_AEC_AGNOSTIC"] == "0" { settings.processing.delayAgnostic = false }
        if let v = env["PARLEY_AEC_FAR_ZERO_CROSSINGS"].flatMap(Int.init) { settings.farEndZeroCrossings = v }
        print("settings: \(settings)")
        print(String(format: "far end %.1f s, near end %.1f s at 6.0 s, IR RT60 250 ms", Double(f.far16.count) / 16_000,
                     Double(f.near.count) / 16_000))
        print("delay ms | echo dB | ERLE dB from 2 s / after DT | near gain dB | DT in/out dBFS | CPU % of a core | far offset ms")
        // The library alone (optimised by the distribution), without parley's alignment around it.
        let processor = try WebRTCAudioProcessing(settings: settings.processing)
        var near = [Int16](repeating: 0, count: 160)
        let cpu0 = ThreadCPUTime.nanoseconds()
        var frames = 0
        for start in stride(from: 0, to: f.far16.count - 160, by: 160) {
            try f.far16[start..<(start + 160)].withUnsafeBufferPointer { try processor.analyzeFarEnd($0) }
            for k in 0..<160 { near[k] = f.far16[start + k] / 4 }
            try near.withUnsafeMutableBufferPointer { try processor.processNearEnd($0, delayMilliseconds: 0) }
            frames += 1
        }
        let libraryCPU = Double(ThreadCPUTime.nanoseconds() - cpu0) / 1e9 / (Double(frames) / 100)
        print(String(format: "WebRTC processing alone: %.2f %% of a core", 100 * libraryCPU))
        for delay in [30, 80, 150] {
            for gain in env["PARLEY_AEC_QUICK"] == "1" ? [-6.0] : [0.0, -6.0, -20.0] {
                let r = try EchoScenario(delayMilliseconds: delay, echoGainDB: gain)
                    .run(far24: f.far24, far16: f.far16, near: f.near, ir: f.ir, settings: settings)
                print(String(format: "%8d | %7.0f | %12.1f / %11.1f | %12.1f | %6.1f / %6.1f | %15.2f | %@", delay, gain, r.erleDB, r.steadyERLEDB,
                             r.nearGainDB, r.doubleTalkInputDB, r.doubleTalkOutputDB, 100 * r.cpuPerSecond,
                             "\(r.farOffsetMilliseconds) (\(r.realignments)x)"))
            }
        }
    }
}
