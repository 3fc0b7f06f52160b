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
    /// Phase p's taps at `p * stride ..< p * stride + taps`: tap k weights input sample i + k - halfTaps + 1
    /// for the output at i + p/L; zeros up to `stride`. One flat table, read through a pointer: no array per
    /// phase to retain.
    let weights: [Float]
    var taps: Int { 2 * halfTaps }
    /// Each phase's length in the table: `taps` rounded up to whole vectors of `Resampler.lanes`, so a dot
    /// product is vectors only. It reads `stride - taps` inputs past the window, which the zeros weight out;
    /// the input buffers hold that many more samples.
    let stride: Int
    /// The dot product's vector width.
    static let lanes = 8

    /// Zero crossings of the sinc on each side of the centre (at the lower of the two rates), unless told.
    public static let zeroCrossings = 16
    /// The cutoff as a fraction of the lower Nyquist frequency.
    static let rolloff = 0.90
    static let kaiserBeta = 8.0
    /// Above this many phases the table is too big; phases are then quantised to this many.
    static let maxPhases = 4096

    /// Builds the filter bank for converting `from` Hz to `to` Hz. `zeroCrossings` on each side set the filter's
    /// length, so its cost and how steep its transition band is (the stopband stays about 80 dB down).
    public init(from: Int, to: Int, zeroCrossings: Int = Resampler.zeroCrossings) {
        precondition(from > 0 && to > 0, "sample rates must be positive")
        precondition(zeroCrossings > 0, "the filter needs a zero crossing")
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
        let half = Int((Double(zeroCrossings) / (2 * cutoff)).rounded(.up))
        halfTaps = half
        let stride = (2 * half + Resampler.lanes - 1) / Resampler.lanes * Resampler.lanes
        self.stride = stride
        let i0 = Resampler.besselI0(Resampler.kaiserBeta)
        var table: [Float] = []
        table.reserveCapacity(l * stride)
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
            table += taps.map { Float($0 / (sum == 0 ? 1 : sum)) }
            table += repeatElement(0, count: stride - 2 * half)
        }
        weights = table
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
        // Silence on both sides in the buffer itself, so every output takes the one full-length dot product
        // the streaming resampler takes too (the same sums, so both give the same samples).
        let lead = halfTaps - 1
        var input = [Float](repeating: 0, count: lead + n + halfTaps + 1 + stride - taps)
        for (k, v) in samples.enumerated() { input[lead + k] = Float(v) }
        return [Int16](unsafeUninitializedCapacity: outCount) { y, count in
            input.withUnsafeBufferPointer { x in
                // The window of output 0 starts at input sample -halfTaps + 1: index 0 in the padded buffer.
                convolve(x.baseAddress!, firstOutput: 0, count: outCount, into: y.baseAddress!)
            }
            count = outCount
        }
    }

    /// Outputs `firstOutput ..< firstOutput + count` of a stream into `y`; `x` points at the first sample of
    /// output `firstOutput`'s window. Steps through the phases without a division per output.
    func convolve(_ x: UnsafePointer<Float>, firstOutput: Int, count: Int, into y: UnsafeMutablePointer<Int16>) {
        guard count > 0 else { return }
        weights.withUnsafeBufferPointer { w in
            let h = w.baseAddress!
            let start = firstOutput * down
            var i = 0  // input offset of the window from output `firstOutput`'s
            var phase = start % up
            if stride == 32 {
                // The far end's filter (30 taps): the same sums, the loop over the vectors unrolled.
                for o in 0..<count {
                    y[o] = Self.sample32(x + i, h + phase &* 32)
                    phase &+= down
                    while phase >= up {
                        phase &-= up
                        i &+= 1
                    }
                }
                return
            }
            for o in 0..<count {
                y[o] = Self.sample(x + i, h + phase &* stride, stride: stride)
                phase &+= down
                while phase >= up {
                    phase &-= up
                    i &+= 1
                }
            }
        }
    }

    /// One output sample: the dot product of `stride` inputs and one phase's weights (zeros past its taps),
    /// rounded and clipped. Vectors of eight, two sums (the loop does not wait on one addition at a time); both
    /// resamplers call this, so a stream cut into blocks gives exactly the samples of the whole signal.
    @inline(__always)
    static func sample(_ x: UnsafePointer<Float>, _ h: UnsafePointer<Float>, stride: Int) -> Int16 {
        let xr = UnsafeRawPointer(x), hr = UnsafeRawPointer(h)
        var a = SIMD8<Float>(), b = SIMD8<Float>()
        var k = 0
        while k &+ 16 <= stride {
            a += xr.loadUnaligned(fromByteOffset: 4 &* k, as: SIMD8<Float>.self)
                * hr.loadUnaligned(fromByteOffset: 4 &* k, as: SIMD8<Float>.self)
            b += xr.loadUnaligned(fromByteOffset: 4 &* (k &+ 8), as: SIMD8<Float>.self)
                * hr.loadUnaligned(fromByteOffset: 4 &* (k &+ 8), as: SIMD8<Float>.self)
            k &+= 16
        }
        if k < stride {
            a += xr.loadUnaligned(fromByteOffset: 4 &* k, as: SIMD8<Float>.self)
                * hr.loadUnaligned(fromByteOffset: 4 &* k, as: SIMD8<Float>.self)
        }
        return rounded(a + b)
    }

    /// `sample` for a stride of 32, its additions in the same order (so the same sample to the bit).
    @inline(__always)
    static func sample32(_ x: UnsafePointer<Float>, _ h: UnsafePointer<Float>) -> Int16 {
        let xr = UnsafeRawPointer(x), hr = UnsafeRawPointer(h)
        var a = xr.loadUnaligned(fromByteOffset: 0, as: SIMD8<Float>.self) * hr.loadUnaligned(fromByteOffset: 0, as: SIMD8<Float>.self)
        var b = xr.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self) * hr.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
        a += xr.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self) * hr.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self)
        b += xr.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self) * hr.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
        return rounded(a + b)
    }

    /// The eight lanes' sum as a sample, rounded and clipped.
    @inline(__always)
    static func rounded(_ eight: SIMD8<Float>) -> Int16 {
        // Halves added to halves (`sum()` adds the eight lanes one after another, a shuffle and an add each).
        let four = eight.lowHalf + eight.highHalf
        let two = four.lowHalf + four.highHalf
        let v = two[0] + two[1]
        return v >= 32767 ? 32767 : v <= -32768 ? -32768 : roundedToInt16(v)
    }

    /// `v` rounded to the nearest integer, ties to even (as `lrintf` does in the default rounding mode), for
    /// |v| < 32768: adding 1.5 · 2²³ leaves the integer in the float's low mantissa bits, rounded by the addition
    /// itself. Two instructions and a subtraction, where `lrintf` is a call through the PLT and `rounded()` one to
    /// libm's roundf.
    @inline(__always)
    static func roundedToInt16(_ v: Float) -> Int16 {
        let shifted = v + 12_582_912  // 1.5 · 2²³
        return Int16(truncatingIfNeeded: Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000)
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
    /// Input samples from absolute index `base`; a stream starts with the filter's half length of silence
    /// (negative indices), so every output is one full-length dot product.
    private var input: [Float] = []
    private var base = 0
    private var received = 0  // input samples received since the start (or `reset`)
    private var nextOutput = 0  // absolute index of the next output sample

    /// A stream converting `from` Hz to `to` Hz (`zeroCrossings`: see `Resampler.init`).
    public init(from: Int, to: Int, zeroCrossings: Int = Resampler.zeroCrossings) {
        resampler = Resampler(from: from, to: to, zeroCrossings: zeroCrossings)
        reset()
    }

    /// `samples` as floats, converted eight at a time.
    static func floats(_ samples: UnsafeBufferPointer<Int16>) -> [Float] {
        let n = samples.count
        return [Float](unsafeUninitializedCapacity: n) { out, count in
            if let src = samples.baseAddress, let dst = out.baseAddress {
                let from = UnsafeRawPointer(src), to = UnsafeMutableRawPointer(dst)
                var k = 0
                while k &+ 8 <= n {
                    let v = from.loadUnaligned(fromByteOffset: 2 &* k, as: SIMD8<Int16>.self)
                    to.storeBytes(of: SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: v)), toByteOffset: 4 &* k, as: SIMD8<Float>.self)
                    k &+= 8
                }
                while k < n {
                    dst[k] = Float(src[k])
                    k &+= 1
                }
            }
            count = n
        }
    }

    /// Starts a new stream: forgets the input held (the stream is taken as silent before the next block).
    public mutating func reset() {
        let lead = resampler.halfTaps - 1
        input.removeAll(keepingCapacity: true)
        input.append(contentsOf: repeatElement(0, count: lead))
        base = -lead
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
        let pad = r.stride - r.taps
        // The block as floats (eight samples a step), and zeros for the inputs the padded phases read past the
        // last window.
        input.append(contentsOf: Self.floats(block))
        input.append(contentsOf: repeatElement(0, count: pad))
        received += block.count
        let first = nextOutput
        // Outputs whose window (input i - halfTaps + 1 ... i + halfTaps) has arrived.
        let end = ((received - r.halfTaps) * r.up + r.down - 1) / r.down
        let count = max(0, end - first)
        let window = (first * r.down) / r.up - r.halfTaps + 1 - base
        let out = [Int16](unsafeUninitializedCapacity: count) { y, n in
            input.withUnsafeBufferPointer { x in
                r.convolve(x.baseAddress! + window, firstOutput: first, count: count, into: y.baseAddress!)
            }
            n = count
        }
        input.removeLast(pad)
        nextOutput += count
        // Keep only what the next output still needs.
        let needed = (nextOutput * r.down) / r.up - r.halfTaps + 1
        let drop = min(input.count, max(0, needed - base))
        if drop > 0 {
            input.removeFirst(drop)
            self.base += drop
        }
        return (out, Double(first * r.down) / Double(r.up))
    }
}
