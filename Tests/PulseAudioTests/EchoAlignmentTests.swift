import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The pieces that line the far end up with the microphone: resampling in blocks, the far-end timeline, the
/// capture clock and the delay estimator.
final class EchoAlignmentTests: XCTestCase {
    func testStreamingResamplerMatchesTheWholeSignalAndReportsPositions() {
        let x = Signals.sine(frequency: 440, rate: 24_000, seconds: 0.2, amplitude: 0.5)
        // The resampler's own filter and the canceller's shorter far-end one.
        for zeroCrossings in [Resampler.zeroCrossings, WebRTCCanceller.Settings().farEndZeroCrossings] {
            let whole = Resampler(from: 24_000, to: 16_000, zeroCrossings: zeroCrossings).process(x)
            var stream = StreamingResampler(from: 24_000, to: 16_000, zeroCrossings: zeroCrossings)
            var out: [Int16] = []
            for start in stride(from: 0, to: x.count, by: 240) {
                let (samples, position) = x[start..<min(x.count, start + 240)].withUnsafeBufferPointer { stream.process($0) }
                // The first output of each call sits at its index times 24/16 in the input.
                XCTAssertEqual(position, Double(out.count) * 1.5, accuracy: 1e-9)
                out += samples
            }
            XCTAssertGreaterThan(out.count, whole.count - 40, "all but the filter's half length is out")
            XCTAssertEqual(out, Array(whole.prefix(out.count)), "blocks join exactly as the whole signal")
        }
    }

    /// The canceller's one-line state for the log: every figure named, unknown metrics said as such.
    func testTheStatisticsSummaryNamesWhatDiagnosesAnEcho() {
        var stats = WebRTCCanceller.Statistics()
        XCTAssertEqual(stats.summary, "ERLE unknown, ERL unknown, delay unknown, far end 0 ms ahead, 0 re-points, 0 frames "
                       + "adapted since, 0 with far end and 0 passed idle of 0, 0 refused")
        stats.metrics = WebRTCAudioProcessing.Metrics(erleDB: 31.46, erlDB: 9.0, delayMilliseconds: 64, hasEcho: true)
        stats.farOffsetMilliseconds = 40
        stats.realignments = 2
        stats.framesAdapted = 180
        stats.framesWithFarEnd = 412
        stats.framesPassedIdle = 900
        stats.framesProcessed = 1500
        stats.failures = 1
        XCTAssertEqual(stats.summary, "ERLE 31.5 dB, ERL 9.0 dB, delay 64 ms, far end 40 ms ahead, 2 re-points, 180 frames "
                       + "adapted since, 412 with far end and 900 passed idle of 1500, 1 refused")
    }

    /// Blocks become floats eight samples at a time and the rest one by one: every length from 0 to 19, full
    /// scale both ways.
    func testBlocksBecomeTheirFloats() {
        let samples: [Int16] = (0..<19).map { [Int16.min, .max, 0, -1, 1, 12_345, -23_456][$0 % 7] }
        for n in 0...samples.count {
            let floats = samples.prefix(n).withUnsafeBufferPointer { StreamingResampler.floats($0) }
            XCTAssertEqual(floats, samples.prefix(n).map(Float.init), "\(n) samples")
        }
    }

    /// The canceller's far-end filter: 30 taps from 24 to 16 kHz, each phase four vectors of eight; flat where
    /// speech is (a 1 kHz tone comes out at its level) and far down past the lower Nyquist frequency (a 9 kHz
    /// tone, which would alias to 7 kHz, is gone).
    func testTheFarEndFilterIsShortFlatInSpeechAndStopsWhatWouldAlias() {
        let zeroCrossings = WebRTCCanceller.Settings().farEndZeroCrossings
        let r = Resampler(from: 24_000, to: 16_000, zeroCrossings: zeroCrossings)
        XCTAssertEqual(r.taps, 30)
        XCTAssertEqual(r.stride, 32)
        func level(_ frequency: Double) -> Double {
            let y = r.process(Signals.sine(frequency: frequency, rate: 24_000, seconds: 0.5, amplitude: 0.5))
            let middle = y[2000..<6000].map { Double($0) }
            let rms = (middle.reduce(0) { $0 + $1 * $1 } / Double(middle.count)).squareRoot()
            return 20 * log10(rms / (0.5 * 32767 / 2.0.squareRoot()))
        }
        XCTAssertEqual(level(1000), 0, accuracy: 0.1)
        XCTAssertEqual(level(5000), 0, accuracy: 0.5)
        XCTAssertLessThan(level(9000), -40)
    }

    func testTimelineSnapsJitterReadsInOrderAndForgetsFlushedAudio() {
        var t = FarEndTimeline(sampleRate: 16_000)
        let t0: UInt64 = 5_000_000_000
        let block = (0..<160).map { Int16($0) }
        // Three 10 ms blocks whose heard times jitter by a few ms: one continuous signal.
        t.append(block, heardFrom: t0)
        t.append(block.map { $0 + 1000 }, heardFrom: t0 + 13_000_000)
        t.append(block.map { $0 + 2000 }, heardFrom: t0 + 18_000_000)
        var out = [Int16](repeating: -1, count: 160)
        out.withUnsafeMutableBufferPointer { t.read(into: $0, from: t0 + 5_000_000) }
        XCTAssertEqual(Array(out[0..<80]), Array(block[80..<160]))
        XCTAssertEqual(Array(out[80..<160]), Array(block[0..<80].map { $0 + 1000 }))
        // A flush at 20 ms: what was placed after it is never heard.
        t.flush(at: t0 + 20_000_000)
        out.withUnsafeMutableBufferPointer { t.read(into: $0, from: t0 + 15_000_000) }
        XCTAssertEqual(Array(out[0..<80]), Array(block[80..<160].map { $0 + 1000 }))
        XCTAssertEqual(Array(out[80..<160]), [Int16](repeating: 0, count: 80), "flushed: silence")
        out.withUnsafeMutableBufferPointer { t.read(into: $0, from: t0 + 25_000_000) }
        XCTAssertEqual(t.count, 0, "everything heard before the read is forgotten")
        // A block far from the last one starts a new stretch, silence between.
        t.append(block, heardFrom: t0 + 1_000_000_000)
        out.withUnsafeMutableBufferPointer { t.read(into: $0, from: t0 + 995_000_000) }
        XCTAssertEqual(Array(out[0..<80]), [Int16](repeating: 0, count: 80))
        XCTAssertEqual(Array(out[80..<160]), Array(block[0..<80]))
    }

    func testCaptureClockAdvancesByChunksSmoothsJitterAndReanchorsOnJumps() {
        var clock = CaptureClock()
        let t0: UInt64 = 9_000_000_000
        XCTAssertEqual(clock.chunkStart(estimate: t0, duration: 0.02), t0)
        let jitter: [Int64] = [3_000_000, -2_500_000, 1_000_000, -4_000_000]
        var previous = t0
        for (i, j) in jitter.enumerated() {
            let estimate = UInt64(Int64(t0) + Int64(i + 1) * 20_000_000 + j)
            let start = clock.chunkStart(estimate: estimate, duration: 0.02)
            XCTAssertEqual(Double(start) - Double(previous), 20_000_000, accuracy: 250_000, "one chunk later, within 0.25 ms")
            previous = start
        }
        let jumped = previous + 20_000_000 + 200_000_000
        XCTAssertEqual(clock.chunkStart(estimate: jumped, duration: 0.02), jumped, "an overrun re-anchors")
    }

    /// A device whose sample clock runs 2 600 ppm fast against the monotonic clock (the loopback rig's null sinks
    /// did), read with ±3 ms of jitter: the clock follows where the chunks really start, within a millisecond
    /// after a few seconds and from then on, and moves smoothly. The old clock (one chunk at a time, slewing at
    /// most 1 000 ppm) was 20 ms off after 20 seconds and 30 after 30.
    func testCaptureClockFollowsADeviceThatRunsFastThroughJitter() {
        var clock = CaptureClock()
        var noise = EchoRoom.Noise(state: 11)
        let t0 = 5e9, chunk = 0.02 / 1.0026  // 20 ms of audio takes 19.948 ms of the monotonic clock
        var worstAfterSettling = 0.0, biggestStep = 0.0
        var previous: Double?
        for i in 0..<3000 {  // one minute
            let truth = t0 + Double(i) * chunk * 1e9
            let jitter = min(max(noise.next(), -3), 3) * 1e6
            let start = Double(clock.chunkStart(estimate: UInt64(truth + jitter), duration: 0.02))
            if i >= 250 { worstAfterSettling = max(worstAfterSettling, abs(start - truth)) }
            if let p = previous { biggestStep = max(biggestStep, abs(start - p - chunk * 1e9)) }
            previous = start
        }
        XCTAssertLessThan(worstAfterSettling, 1e6, "within a millisecond of the truth after 5 s")
        XCTAssertLessThan(biggestStep, 0.25e6, "no chunk moves more than 0.25 ms against its neighbour")
        XCTAssertEqual(clock.rate, 1 / 1.0026, accuracy: 2e-4, "the device's rate learned")
    }

    func testDelayEstimatorFindsTheEchoLag() {
        var estimator = EchoDelayEstimator()
        var noise = EchoRoom.Noise(state: 3)
        // Syllable-like bursts on the far end; the mic hears them 7 frames (70 ms) later, 10 dB down, with noise.
        var farLevels: [Double] = []
        var level = -60.0
        for _ in 0..<600 {
            if noise.next() > 1.2 { level = -20 - 10 * abs(noise.next()) } else { level = max(-60, level - 6) }
            farLevels.append(level)
        }
        var found: [Int] = []
        for i in farLevels.indices {
            let echo = i >= 7 ? farLevels[i - 7] - 10 : -60
            let near = max(-60, 10 * log10(pow(10, echo / 10) + pow(10, -55.0 / 10)) + noise.next())
            if let lag = estimator.add(farLevel: farLevels[i], nearLevel: near) { found.append(lag) }
        }
        XCTAssertFalse(found.isEmpty, "an estimate once the window is full")
        for lag in found { XCTAssertEqual(lag, 7, accuracy: 1) }
    }

    /// Headphones, or a barge-in the echo is too faint to show in: the mic hears the room, then the user starts
    /// talking over the reply. That one onset follows some far onset at a lag in range and correlates with it
    /// (0.36 in the conversation benchmark, whose replies rise like these); taken for the echo it re-pointed the
    /// far end and restarted convergence, the mic guarded again while the next reply played.
    func testDelayEstimatorIgnoresOneOnsetAtTheMicWithoutEcho() {
        var estimates: [String] = []
        // A short reply (a few syllables, then quiet: it ended or was flushed) and the user starting to talk at
        // each frame from its start to 0.4 s past its end.
        for syllables in [3, 4, 6, 9] {
            let reply = Self.syllableLevels(syllables: syllables)
            let far = Array(repeating: -60.0, count: 100) + reply + Array(repeating: -60.0, count: 350 - reply.count)
            for start in stride(from: 100, through: 140 + reply.count, by: 3) {
                var estimator = EchoDelayEstimator()
                var noise = EchoRoom.Noise(state: 5)
                for i in far.indices {
                    // The room (-60 dBFS), then a steady voice (about -18) from `start` on.
                    let near = max(-60, (i >= start ? -18 : -60) + 0.5 * noise.next())
                    if let lag = estimator.add(farLevel: far[i], nearLevel: near) {
                        estimates.append("\(syllables) syllables, talking from \(start): lag \(lag)")
                    }
                }
            }
        }
        XCTAssertEqual(estimates, [], "no echo, one onset at the mic: nothing to point at")
    }

    /// Replies like those with their echo at the mic (50 ms late, 20 dB down, over the room): found.
    func testDelayEstimatorFindsTheEchoOfSyllables() {
        let far = Self.syllableLevels(syllables: 40)
        var estimator = EchoDelayEstimator()
        var noise = EchoRoom.Noise(state: 9)
        var found: [Int] = []
        for i in far.indices {
            let echo = i >= 5 ? far[i - 5] - 20 : -80
            let near = max(-60, 10 * log10(pow(10, echo / 10) + pow(10, -58.0 / 10)) + 0.5 * noise.next())
            if let lag = estimator.add(farLevel: far[i], nearLevel: near) { found.append(lag) }
        }
        XCTAssertFalse(found.isEmpty)
        for lag in found { XCTAssertEqual(lag, 5, accuracy: 1) }
    }

    /// 10 ms levels of the simulator's voice: syllables of 150–190 ms that swell and fade (a raised cosine, peak
    /// -7 dBFS), 30 ms between syllables, 70 or 260 ms between words.
    static func syllableLevels(syllables: Int) -> [Double] {
        var levels: [Double] = []
        let lengths = [15, 17, 19, 16], gaps = [3, 7, 3, 26, 3, 7]
        for k in 0..<syllables {
            let n = lengths[k % lengths.count]
            for i in 0..<n {
                let envelope = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(n))
                levels.append(max(-60, 20 * log10(max(envelope * 0.45, 1e-9))))
            }
            if k < syllables - 1 { levels += Array(repeating: -60, count: gaps[k % gaps.count]) }
        }
        return levels
    }
}
