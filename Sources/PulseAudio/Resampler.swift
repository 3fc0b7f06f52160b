#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A band-limited resampler: a polyphase windowed-sinc (Kaiser window) filter at the rational ratio
/// `to / from`. Stopband attenuation is about 80 dB; the passband reaches 90% of the lower Nyquist frequency.
/// A value, so it can be built once and reused for many blocks of the same conversion.
public struct Resampler: Sendable {
    /// Input rate in Hz.
    public let inputRate: Int
    /// Output rate in Hz.
    public let outputRate: Int

    let up: Int          // L: output steps per `down` input samples
    let down: Int        // M
    let halfTaps: Int    // taps each side of the centre, in input samples
    let phases: [[Float]]  // phases[p][k] weights input sample i + k - halfTaps + 1 for phase p/L

    /// Zero crossings of the sinc on each side of the centre (at the lower of the two rates).
    static let zeroCrossings = 16
    /// The cutoff as a fraction of the lower Nyquist frequency.
    static let rolloff = 0.90
    static let kaiserBeta = 8.0
    /// Above this many phases the table is too big; phases are then quantised to this many.
    static let maxPhases = 4096

    /// Builds the filter bank for converting `from` Hz to `to` Hz.
    public init(from: Int, to: Int) {
        precondition(from > 0 && to > 0, "sample rates must be positive")
        inputRate = from
        outputRate = to
        let g = Resampler.gcd(from, to)
        var l = to / g
        var m = from / g
        if l > Resampler.maxPhases {
            // Unusual ratio: approximate it (error below 1/4096 of a sample per step).
            let scale = Double(Resampler.maxPhases) / Double(l)
            l = Resampler.maxPhases
            m = max(1, Int((Double(m) * scale).rounded()))
        }
        up = l
        down = m
        // Cutoff in cycles per input sample.
        let cutoff = 0.5 * Resampler.rolloff * min(1.0, Double(l) / Double(m))
        let half = Int((Double(Resampler.zeroCrossings) / (2 * cutoff)).rounded(.up))
        halfTaps = half
        let i0 = Resampler.besselI0(Resampler.kaiserBeta)
        var table: [[Float]] = []
        table.reserveCapacity(l)
        for p in 0..<l {
            let frac = Double(p) / Double(l)
            var taps = [Double](repeating: 0, count: 2 * half)
            var sum = 0.0
            for k in 0..<(2 * half) {
                // Input sample index offset j = k - half + 1 relative to floor(t); distance x = frac - j.
                let x = frac - Double(k - half + 1)
                let w = Resampler.kaiser(x / Double(half), beta: Resampler.kaiserBeta, i0Beta: i0)
                let v = 2 * cutoff * Resampler.sinc(2 * cutoff * x) * w
                taps[k] = v
                sum += v
            }
            // Unity gain at DC for every phase: no ripple from the phase table.
            table.append(taps.map { Float($0 / (sum == 0 ? 1 : sum)) })
        }
        phases = table
    }

    /// Converts `samples` (mono) from `from` Hz to `to` Hz.
    public static func resample(_ samples: [Int16], from: Int, to: Int) -> [Int16] {
        guard from != to, !samples.isEmpty else { return samples }
        return Resampler(from: from, to: to).process(samples)
    }

    /// Converts one whole signal (mono). The signal is taken as silent before and after.
    public func process(_ samples: [Int16]) -> [Int16] {
        guard inputRate != outputRate, !samples.isEmpty else { return samples }
        let n = samples.count
        let outCount = Int((Int64(n) * Int64(up) + Int64(down) - 1) / Int64(down))
        var out = [Int16](repeating: 0, count: outCount)
        let input = samples.map { Float($0) }
        let taps = 2 * halfTaps
        input.withUnsafeBufferPointer { x in
            out.withUnsafeMutableBufferPointer { y in
                for o in 0..<outCount {
                    let pos = o * down
                    let i = pos / up
                    let phase = pos - i * up
                    let h = phases[phase]
                    let first = i - halfTaps + 1
                    var acc: Float = 0
                    if first >= 0 && first + taps <= n {
                        h.withUnsafeBufferPointer { hp in
                            for k in 0..<taps { acc += hp[k] * x[first + k] }
                        }
                    } else {
                        for k in 0..<taps {
                            let j = first + k
                            if j >= 0 && j < n { acc += h[k] * x[j] }
                        }
                    }
                    let r = acc.rounded()
                    y[o] = r >= 32767 ? 32767 : r <= -32768 ? -32768 : Int16(r)
                }
            }
        }
        return out
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    static func kaiser(_ t: Double, beta: Double, i0Beta: Double) -> Double {
        guard abs(t) <= 1 else { return 0 }
        return besselI0(beta * (1 - t * t).squareRoot()) / i0Beta
    }

    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        let q = x * x / 4
        while term > 1e-12 * sum {
            term *= q / (k * k)
            sum += term
            k += 1
        }
        return sum
    }
}

/// A resampler for a stream that arrives in blocks (the far end of the echo canceller, written 10 ms at a
/// time): it keeps the input the filter still needs between calls, so blocks join without clicks. A value;
/// one per stream.
public struct StreamingResampler: Sendable {
    /// The filter.
    public let resampler: Resampler
    private var input: [Float] = []  // input samples from absolute index `base`
    private var base = 0
    private var received = 0  // input samples received since the start (or `reset`)
    private var nextOutput = 0  // absolute index of the next output sample

    /// A stream converting `from` Hz to `to` Hz.
    public init(from: Int, to: Int) {
        resampler = Resampler(from: from, to: to)
    }

    /// Starts a new stream: forgets the input held (the stream is taken as silent before the next block).
    public mutating func reset() {
        input.removeAll(keepingCapacity: true)
        base = 0
        received = 0
        nextOutput = 0
    }

    /// Appends `block` and returns every output sample now computable, with the position of the first one in
    /// the input, in input samples from the start of the stream (fractional). The outputs lag the input by the
    /// filter's half length (about 1 ms), which `inputPosition` accounts for.
    public mutating func process(_ block: UnsafeBufferPointer<Int16>) -> (samples: [Int16], inputPosition: Double) {
        let r = resampler
        if r.inputRate == r.outputRate {
            defer { received += block.count }
            return (Array(block), Double(received))
        }
        input.reserveCapacity(input.count + block.count)
        for v in block { input.append(Float(v)) }
        received += block.count
        let first = nextOutput
        var out: [Int16] = []
        let taps = 2 * r.halfTaps
        input.withUnsafeBufferPointer { x in
            while true {
                let pos = nextOutput * r.down
                let i = pos / r.up
                guard i + r.halfTaps < received else { break }
                let h = r.phases[pos - i * r.up]
                let start = i - r.halfTaps + 1
                var acc: Float = 0
                for k in 0..<taps {
                    let j = start + k - base
                    if j >= 0 { acc += h[k] * x[j] }  // before the stream started: silence
                }
                let v = acc.rounded()
                out.append(v >= 32767 ? 32767 : v <= -32768 ? -32768 : Int16(v))
                nextOutput += 1
            }
        }
        // Keep only what the next output still needs.
        let needed = (nextOutput * r.down) / r.up - r.halfTaps + 1
        let drop = min(input.count, max(0, needed - base))
        if drop > 0 {
            input.removeFirst(drop)
            base += drop
        }
        return (out, Double(first * r.down) / Double(r.up))
    }
}
