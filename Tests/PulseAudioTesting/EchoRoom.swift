import Foundation
import XCTest
@testable import PulseAudio

/// Speech from espeak-ng, generated at test time into a temporary directory.
package enum Speech {
    /// Text the model "says" (the far end) and the user says over it (the near end).
    package static let farText = """
        The weather today will be mostly sunny with a light breeze from the west. In the afternoon, clouds \
        gather over the hills, and there is a small chance of rain near the coast. Tomorrow looks warmer, \
        with temperatures climbing into the mid twenties by noon, so plan your walk for the morning.
        """
    package static let nearText = "Stop. Please stop for a moment, I have a question about tomorrow."

    /// Renders `text` with espeak-ng (`voice`, words per minute) and reads it back mono at `rate`; skips the
    /// test if espeak-ng is not installed.
    package static func render(_ text: String, voice: String, pitch: Int, rate: Int, in dir: URL) throws -> [Int16] {
        guard let espeak = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            throw XCTSkip("espeak-ng is not installed (apt-get install espeak-ng; scripts/install-deps.sh does)")
        }
        let url = dir.appendingPathComponent("\(voice)-\(pitch)-\(text.hashValue).wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: espeak)
        p.arguments = ["-v", voice, "-p", "\(pitch)", "-s", "165", "-w", url.path, text]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw XCTSkip("espeak-ng failed with status \(p.terminationStatus)")
        }
        return try WAVFile.readMono(url, sampleRate: rate)
    }

    /// A fresh temporary directory, removed by the caller.
    package static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-aec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// A synthetic room: the speaker's signal reaches the microphone through an impulse response of exponentially
/// decaying noise after a direct path, delayed, scaled, plus the user's voice and a little noise.
package struct EchoRoom {
    /// Deterministic noise (xorshift), so every run hears the same room.
    package struct Noise {
        package var state: UInt64
        package init(state: UInt64) { self.state = state }
        package mutating func next() -> Double {  // roughly N(0, 1): sum of 4 uniforms, scaled
            var s = 0.0
            for _ in 0..<4 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                s += Double(state >> 11) / Double(1 << 53) - 0.5
            }
            return s * (3.0).squareRoot()
        }
    }

    /// The impulse response at `rate`: a direct path then a reverberant tail decaying 60 dB in `rt60` seconds,
    /// `length` seconds long, normalised to unit energy.
    package static func impulseResponse(rate: Int, rt60: Double = 0.25, length: Double = 0.25, seed: UInt64 = 7) -> [Float] {
        var noise = Noise(state: seed)
        let n = Int(Double(rate) * length)
        var h = [Double](repeating: 0, count: n)
        let direct = Int(0.002 * Double(rate))  // 2 ms: about 70 cm from speaker to mic
        h[direct] = 1
        for i in (direct + 1)..<n {
            let t = Double(i - direct) / Double(rate)
            h[i] = 0.5 * noise.next() * exp(-6.91 * t / rt60)
        }
        let energy = h.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return h.map { Float($0 / energy) }
    }

    /// `x` convolved with `h` (same length as `x`).
    package static func convolve(_ x: [Int16], _ h: [Float]) -> [Float] {
        var y = [Float](repeating: 0, count: x.count)
        let xf = x.map { Float($0) }
        xf.withUnsafeBufferPointer { xp in
            h.withUnsafeBufferPointer { hp in
                y.withUnsafeMutableBufferPointer { yp in
                    for k in 0..<hp.count where hp[k] != 0 {
                        let g = hp[k]
                        var i = k
                        while i < xp.count {
                            yp[i] += g * xp[i - k]
                            i += 1
                        }
                    }
                }
            }
        }
        return y
    }

    /// Power in dB of `x[range]` relative to full scale.
    package static func powerDB(_ x: [Float], _ range: Range<Int>) -> Double {
        guard !range.isEmpty else { return -200 }
        var s = 0.0
        for i in range { s += Double(x[i]) * Double(x[i]) }
        return 10 * log10(max(s / Double(range.count), 1e-20) / (32768.0 * 32768.0))
    }
}

/// One run of the canceller over a scenario, and what it achieved.
package struct EchoScenario {
    /// How long after it is played the echo reaches the microphone, beyond what the latency figures say, in ms.
    package var delayMilliseconds: Int
    /// The echo's level relative to the far end as played, in dB (the room's echo return loss, negated).
    package var echoGainDB: Double
    /// When the near-end speech starts, in seconds.
    package var nearStart: Double = 6

    package init(delayMilliseconds: Int, echoGainDB: Double, nearStart: Double = 6) {
        self.delayMilliseconds = delayMilliseconds
        self.echoGainDB = echoGainDB
        self.nearStart = nearStart
    }

    package struct Result {
        /// Echo return loss enhancement over far-end-only stretches after `convergence`, in dB.
        package var erleDB: Double
        /// The same after the double talk (the canceller settled, its delay found).
        package var steadyERLEDB: Double
        /// The near-end speech's gain through the canceller during double talk, in dB (0: kept intact).
        package var nearGainDB: Double
        /// The near-end's level with echo before processing, and the output's, during double talk, in dBFS.
        package var doubleTalkInputDB: Double
        package var doubleTalkOutputDB: Double
        /// Processing CPU per second of audio, in seconds.
        package var cpuPerSecond: Double
        package var seconds: Double
        package var metrics: WebRTCAudioProcessing.Metrics?
        package var farOffsetMilliseconds: Int
        package var realignments: Int
    }

    /// Plays `far` (24 kHz) through the canceller's far side and the room, adds `near` (16 kHz) from
    /// `nearStart`, processes the microphone in 20 ms chunks, and measures.
    package func run(far24: [Int16], far16: [Int16], near: [Int16], ir: [Float], settings: WebRTCCanceller.Settings,
             convergence: Double = 2) throws -> Result {
        let rate = 16_000
        let canceller = try WebRTCCanceller(settings: settings)
        let delay = delayMilliseconds * rate / 1000
        let gain = Float(pow(10, echoGainDB / 20))
        let reverberant = EchoRoom.convolve(far16, ir)
        let total = far16.count + rate
        var echo = [Float](repeating: 0, count: total)
        for i in 0..<reverberant.count where i + delay < total { echo[i + delay] = gain * reverberant[i] }
        var nearSignal = [Float](repeating: 0, count: total)
        let nearAt = Int(nearStart * Double(rate))
        for (i, v) in near.enumerated() where nearAt + i < total { nearSignal[nearAt + i] = Float(v) }
        var noise = EchoRoom.Noise(state: 99)
        var mic = [Int16](repeating: 0, count: total)
        for i in 0..<total {
            let v = echo[i] + nearSignal[i] + Float(noise.next() * 10)  // about -70 dBFS of room noise
            mic[i] = Int16(max(-32768, min(32767, v.rounded())))
        }

        // The far end is handed over 100 ms before it is heard, in 10 ms blocks, as the playback thread does.
        let t0: UInt64 = 1_000_000_000_000
        let farBlock = 240
        var farNext = 0
        var out = [Int16]()
        out.reserveCapacity(total)
        let chunk = 320
        var start = 0
        while start + chunk <= total {
            let now = t0 + UInt64(start) * 62_500
            while farNext < far24.count, t0 + UInt64(farNext / farBlock) * 10_000_000 < now + 100_000_000 {
                let end = min(far24.count, farNext + farBlock)
                far24[farNext..<end].withUnsafeBufferPointer { b in
                    canceller.played(b, heardFrom: t0 + UInt64(farNext / farBlock) * 10_000_000)
                }
                farNext = end
            }
            var samples = Array(mic[start..<(start + chunk)])
            canceller.process(&samples, capturedFrom: now)
            out.append(contentsOf: samples)
            start += chunk
        }
        let outF = out.map { Float($0) }
        let stats = canceller.statistics

        // Far-end-only frames where the echo is audible (above -60 dBFS), away from the near end.
        let frame = 160
        let nearEnd = nearAt + near.count
        func erle(from first: Int) -> Double {
            var echoSum = 0.0, outSum = 0.0
            var i = first
            while i + frame <= out.count {
                let overlapsNear = i + frame > nearAt - rate / 10 && i < nearEnd + rate / 2
                if !overlapsNear, EchoRoom.powerDB(echo, i..<(i + frame)) > -60 {
                    for k in i..<(i + frame) {
                        echoSum += Double(echo[k]) * Double(echo[k])
                        outSum += Double(outF[k]) * Double(outF[k])
                    }
                }
                i += frame
            }
            return 10 * log10(max(echoSum, 1e-9) / max(outSum, 1e-9))
        }

        // The near end's gain: least squares of the output on the clean near end, at the best small lag.
        let dt = nearAt..<min(nearEnd, out.count)
        var best = (lag: 0, dot: 0.0)
        for lag in 0...256 {  // the canceller delays the mic by about 7 ms
            var dot = 0.0
            for k in dt where k + lag < outF.count { dot += Double(outF[k + lag]) * Double(nearSignal[k]) }
            if abs(dot) > abs(best.dot) { best = (lag, dot) }
        }
        var nn = 0.0
        for k in dt { nn += Double(nearSignal[k]) * Double(nearSignal[k]) }
        let nearGain = 20 * log10(max(abs(best.dot) / max(nn, 1e-9), 1e-9))
        let micF = mic.map { Float($0) }
        return Result(erleDB: erle(from: Int(convergence * Double(rate))),
                      steadyERLEDB: erle(from: nearEnd + rate / 2), nearGainDB: nearGain, doubleTalkInputDB: EchoRoom.powerDB(micF, dt),
                      doubleTalkOutputDB: EchoRoom.powerDB(outF, dt),
                      cpuPerSecond: stats.processingSeconds / max(stats.audioSeconds, 1e-9),
                      seconds: stats.audioSeconds, metrics: stats.metrics,
                      farOffsetMilliseconds: stats.farOffsetMilliseconds, realignments: stats.realignments)
    }
}

/// The far end and near end speech of the scenarios, rendered once per test.
package struct EchoFixtures {
    package let far24: [Int16]
    package let far16: [Int16]
    package let near: [Int16]
    package let ir: [Float]

    package init() throws {
        let dir = try Speech.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        far24 = try Speech.render(Speech.farText, voice: "en-us", pitch: 40, rate: 24_000, in: dir)
        // What reaches the room is what the speaker plays: the same signal at the mic's rate.
        far16 = Resampler.resample(far24, from: 24_000, to: 16_000)
        near = try Speech.render(Speech.nearText, voice: "en-gb", pitch: 70, rate: 16_000, in: dir)
        ir = EchoRoom.impulseResponse(rate: 16_000)
    }
}
