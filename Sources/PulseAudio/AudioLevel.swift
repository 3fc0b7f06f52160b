#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The RMS and peak of a block of samples, in dBFS (0 dBFS is a full-scale square wave; a full-scale sine
/// has an RMS of -3 dBFS).
public struct AudioLevel: Sendable, Hashable {
    /// What silence reads as: levels never go below this floor, so they stay finite and easy to draw.
    public static let floorDBFS: Double = -100

    /// Root-mean-square level in dBFS, at least `floorDBFS`.
    public var rmsDBFS: Double
    /// Peak (largest absolute sample) level in dBFS, at least `floorDBFS`.
    public var peakDBFS: Double
    /// Whether a sample hit full scale (32767 or -32768): the signal was probably clipped.
    public var clipped: Bool

    /// Silence.
    public static let silence = AudioLevel(rmsDBFS: floorDBFS, peakDBFS: floorDBFS, clipped: false)

    /// Creates a level from its parts.
    public init(rmsDBFS: Double, peakDBFS: Double, clipped: Bool) {
        self.rmsDBFS = rmsDBFS
        self.peakDBFS = peakDBFS
        self.clipped = clipped
    }

    /// Measures `samples` (any channel layout: all samples count alike).
    public init<C: Collection>(measuring samples: C) where C.Element == Int16 {
        var sumSquares: Double = 0
        var peak: Int32 = 0
        var clipped = false
        for s in samples {
            let v = Int32(s)
            let a = v < 0 ? -v : v
            if a > peak { peak = a }
            if a >= 32767 { clipped = true }
            sumSquares += Double(v * v)
        }
        let n = samples.count
        let rms = n > 0 ? (sumSquares / Double(n)).squareRoot() : 0
        self.init(rmsDBFS: AudioLevel.dBFS(amplitude: rms), peakDBFS: AudioLevel.dBFS(amplitude: Double(peak)),
                  clipped: clipped)
    }

    /// Measures a buffer of samples without copying it.
    public init(measuring buffer: UnsafeBufferPointer<Int16>) {
        var sumSquares: Int64 = 0
        var peak: Int32 = 0
        var start = 0
        if let base = buffer.baseAddress, buffer.count >= 8 {
            // Eight samples at a time (every block played and every chunk captured is measured): the extremes
            // kept lane by lane, the squares (each at most 2^30) added in pairs in unsigned 32-bit lanes (at most
            // 2^31) and summed in 64-bit ones.
            let raw = UnsafeRawPointer(base)
            var high = SIMD8<Int16>(repeating: 0), low = SIMD8<Int16>(repeating: 0)
            var sums = SIMD4<UInt64>()
            while start &+ 8 <= buffer.count {
                let v = raw.loadUnaligned(fromByteOffset: 2 &* start, as: SIMD8<Int16>.self)
                high = pointwiseMax(high, v)
                low = pointwiseMin(low, v)
                let w = SIMD8<Int32>(truncatingIfNeeded: v)
                let squares = SIMD8<UInt32>(truncatingIfNeeded: w &* w)
                sums &+= SIMD4<UInt64>(truncatingIfNeeded: squares.evenHalf &+ squares.oddHalf)
                start &+= 8
            }
            sumSquares = Int64(sums.wrappedSum())
            peak = max(Int32(high.max()), -Int32(low.min()))
        }
        for s in UnsafeBufferPointer(rebasing: buffer[start...]) {
            let v = Int32(s)
            let a = v < 0 ? -v : v
            if a > peak { peak = a }
            sumSquares += Int64(v * v)
        }
        let n = buffer.count
        let rms = n > 0 ? (Double(sumSquares) / Double(n)).squareRoot() : 0
        self.init(rmsDBFS: AudioLevel.dBFS(amplitude: rms), peakDBFS: AudioLevel.dBFS(amplitude: Double(peak)),
                  clipped: peak >= 32767)
    }

    /// Converts a linear amplitude (0...32768) to dBFS, clamped to `floorDBFS`.
    public static func dBFS(amplitude: Double) -> Double {
        guard amplitude > 0 else { return floorDBFS }
        return max(floorDBFS, 20 * log10(amplitude / 32768))
    }

    /// Converts dBFS to a linear amplitude (0...32768).
    public static func amplitude(dBFS: Double) -> Double {
        32768 * pow(10, dBFS / 20)
    }
}
