#if canImport(Glibc)
import Glibc
#endif

/// A coarse estimate of how far behind the far end (as the canceller is given it) its echo reaches the
/// microphone, from the cross-correlation of the two signals' onsets (rises of the 10 ms log energy: a
/// reverberant echo rises with its direct path but decays late, so onsets mark the delay and the tails do
/// not). A pure value.
///
/// WebRTC's canceller (0.3) tracks delays only within about 0–100 ms of where it is pointed, while PulseAudio's
/// latency figures can be off by more than that (a loopback, a Bluetooth sink, a resampling server). This finds
/// the echo to within a frame or two so the canceller can be pointed near it; the canceller does the fine
/// alignment.
struct EchoDelayEstimator: Sendable {
    /// Frames (10 ms) of history correlated.
    let window: Int
    /// The lags searched, in frames (negative: the echo arrives before its far end was handed over).
    let lags: ClosedRange<Int>
    /// How often (in frames) an estimate is made.
    let interval: Int
    /// The least normalised correlation at the peak that counts as an estimate.
    let minCorrelation: Double
    /// Log energy below this (per sample, dB full scale) counts as silence.
    let silenceDB: Double
    /// How many of the far end's onsets the mic must repeat at the lag found: one loud onset at the mic (a user
    /// starting to talk over a reply, with no echo to hear) correlates with whichever far onset it follows, and
    /// would re-point the far end and restart the canceller's convergence; an echo repeats every onset.
    let minMatchedOnsets: Int
    /// A rise of this many dB from one frame to the next counts as an onset.
    let onsetDB: Double

    private var far: [Double] = []  // onsets
    private var near: [Double] = []
    private var farActive: [Bool] = []
    private var lastFar: Double?
    private var lastNear: Double?
    private var sinceEstimate = 0

    init(window: Int = 200, lags: ClosedRange<Int> = -10...40, interval: Int = 25, minCorrelation: Double = 0.35,
         silenceDB: Double = -60, minMatchedOnsets: Int = 3, onsetDB: Double = 6) {
        self.window = window
        self.lags = lags
        self.interval = interval
        self.minCorrelation = minCorrelation
        self.silenceDB = silenceDB
        self.minMatchedOnsets = minMatchedOnsets
        self.onsetDB = onsetDB
    }

    /// The level of a frame in dB full scale, floored at `silenceDB`.
    func level(_ frame: UnsafeBufferPointer<Int16>) -> Double {
        // The sum of squares in integers: each square is below 2^31, and a frame's sum far below 2^53, so it is
        // the exact sum a loop in Double would make, for a fraction of the instructions.
        var s = 0
        for v in frame { s &+= Int(Int32(v) &* Int32(v)) }
        let db = 10 * log10(max(Double(s) / Double(max(1, frame.count)), 1e-3) / (32768.0 * 32768.0))
        return max(db, silenceDB)
    }

    /// Forgets the history (after the far end was re-pointed).
    mutating func reset() {
        far.removeAll(keepingCapacity: true)
        near.removeAll(keepingCapacity: true)
        farActive.removeAll(keepingCapacity: true)
        lastFar = nil
        lastNear = nil
        sinceEstimate = 0
    }

    /// Adds one frame of each side (levels from `level`); every `interval` frames returns the lag (in frames) of
    /// the echo behind the far end, if the correlation is clear.
    mutating func add(farLevel: Double, nearLevel: Double) -> Int? {
        far.append(max(0, farLevel - (lastFar ?? farLevel)))
        near.append(max(0, nearLevel - (lastNear ?? nearLevel)))
        farActive.append(farLevel > silenceDB + 10)
        lastFar = farLevel
        lastNear = nearLevel
        let keep = window + lags.upperBound - min(0, lags.lowerBound)
        if far.count > keep {
            far.removeFirst(far.count - keep)
            near.removeFirst(near.count - keep)
            farActive.removeFirst(farActive.count - keep)
        }
        sinceEstimate += 1
        guard sinceEstimate >= interval, far.count == keep else { return nil }
        sinceEstimate = 0
        return estimate()
    }

    /// The lag maximising the normalised correlation of the envelopes over the last `window` near frames.
    private func estimate() -> Int? {
        // The far end must have played in a good part of the window, or there is nothing to find.
        var active = 0
        for played in farActive where played { active += 1 }
        guard active > window / 5 else { return nil }
        let nearStart = near.count - window + min(0, lags.lowerBound)
        return near.withUnsafeBufferPointer { near in
            far.withUnsafeBufferPointer { far in
                estimate(near: UnsafeBufferPointer(rebasing: near[nearStart..<(nearStart + window)]), far: far,
                         farOffset: nearStart)
            }
        }
    }

    /// `near`: the window's near onsets; `far`: every far onset kept, the one at `farOffset` the same frame as
    /// the window's first.
    private func estimate(near: UnsafeBufferPointer<Double>, far: UnsafeBufferPointer<Double>, farOffset: Int) -> Int? {
        // The near window less its mean, once; then for each lag the far window's mean, and in one pass the far
        // window's spread and its products with the near one (sums four lanes wide: the same figures as one sum
        // after another, to the last few bits).
        let nearMean = Self.sum(near.baseAddress!, window) / Double(window)
        var centred = [Double](repeating: 0, count: window)
        for k in 0..<window { centred[k] = near[k] - nearMean }
        let nearNorm = centred.withUnsafeBufferPointer { Self.dot($0.baseAddress!, $0.baseAddress!, window) }.squareRoot()
        guard nearNorm > 0 else { return nil }
        var scores: [(lag: Int, r: Double)] = []
        scores.reserveCapacity(lags.count)
        centred.withUnsafeBufferPointer { c in
            for lag in lags {
                let first = farOffset - lag
                guard first >= 0, first + window <= far.count else { continue }
                let f = far.baseAddress! + first
                let mean = Self.sum(f, window) / Double(window)
                let (spread, dot) = Self.spreadAndDot(f, mean: mean, c.baseAddress!, window)
                let farNorm = spread.squareRoot()
                guard farNorm > 0 else { continue }
                scores.append((lag, dot / (nearNorm * farNorm)))
            }
        }
        guard let best = scores.max(by: { $0.r < $1.r }), best.r >= minCorrelation else { return nil }
        // A clear peak: nothing well away from it comes close.
        let rival = scores.filter { abs($0.lag - best.lag) > 3 }.map(\.r).max() ?? 0
        guard best.r - rival >= 0.05 else { return nil }
        // Several far onsets heard again at that lag, and more of them than at any lag well away from it: a user
        // talking over the reply has onsets of their own, and some follow far onsets by chance at whatever lag
        // (three at the best lag, three at another, in the double talk that re-pointed the far end 40 or 370 ms
        // off); an echo repeats the far end at one lag only.
        let onsets = Onsets(near: near, far: far, farOffset: farOffset, window: window, onsetDB: onsetDB)
        let matched = onsets.matched(lag: best.lag)
        guard matched >= minMatchedOnsets else { return nil }
        let chance = lags.lazy.filter { abs($0 - best.lag) > 3 }.map { onsets.matched(lag: $0) }.max() ?? 0
        return matched > chance ? best.lag : nil
    }

    /// The onsets of one estimate: where the far end has them, and which of the window's frames have a near onset
    /// within a frame (the echo's onset can straddle two).
    private struct Onsets {
        var far: [Int] = []  // the far frames (indices into the history kept) that rose by `onsetDB` or more, ascending
        var heard: [Bool]
        let farOffset: Int
        let farCount: Int
        let window: Int

        init(near: UnsafeBufferPointer<Double>, far: UnsafeBufferPointer<Double>, farOffset: Int, window: Int, onsetDB: Double) {
            self.farOffset = farOffset
            self.farCount = far.count
            self.window = window
            for (j, rise) in far.enumerated() where rise >= onsetDB { self.far.append(j) }
            heard = [Bool](repeating: false, count: window)
            for k in 0..<window where near[k] >= onsetDB {
                for q in max(0, k - 1)...min(window - 1, k + 1) { heard[q] = true }
            }
        }

        /// The far onsets that the mic repeats `lag` frames later in the window, within a frame; a rise over a
        /// few frames is one onset (after one is counted, the next two frames are not looked at).
        func matched(lag: Int) -> Int {
            guard farOffset - lag >= 0, farOffset - lag + window <= farCount else { return 0 }
            var matched = 0
            var next = 0  // the first frame of the window that may count
            for j in far {
                let k = j + lag - farOffset
                if k < next { continue }
                if k >= window { break }
                if heard[k] {
                    matched += 1
                    next = k + 3
                }
            }
            return matched
        }
    }

    /// The sum of `count` values, four lanes at a time.
    private static func sum(_ x: UnsafePointer<Double>, _ count: Int) -> Double {
        let raw = UnsafeRawPointer(x)
        var a = SIMD4<Double>()
        var k = 0
        while k &+ 4 <= count {
            a += raw.loadUnaligned(fromByteOffset: 8 &* k, as: SIMD4<Double>.self)
            k &+= 4
        }
        var s = (a[0] + a[1]) + (a[2] + a[3])
        while k < count {
            s += x[k]
            k &+= 1
        }
        return s
    }

    /// Σ x·y over `count` values, four lanes at a time.
    private static func dot(_ x: UnsafePointer<Double>, _ y: UnsafePointer<Double>, _ count: Int) -> Double {
        let xr = UnsafeRawPointer(x), yr = UnsafeRawPointer(y)
        var a = SIMD4<Double>()
        var k = 0
        while k &+ 4 <= count {
            a += xr.loadUnaligned(fromByteOffset: 8 &* k, as: SIMD4<Double>.self)
                * yr.loadUnaligned(fromByteOffset: 8 &* k, as: SIMD4<Double>.self)
            k &+= 4
        }
        var s = (a[0] + a[1]) + (a[2] + a[3])
        while k < count {
            s += x[k] * y[k]
            k &+= 1
        }
        return s
    }

    /// Σ (f − mean)² and Σ (f − mean)·c over `count` values, in one pass four lanes at a time.
    private static func spreadAndDot(_ f: UnsafePointer<Double>, mean: Double, _ c: UnsafePointer<Double>,
                                     _ count: Int) -> (spread: Double, dot: Double) {
        let fr = UnsafeRawPointer(f), cr = UnsafeRawPointer(c)
        let m = SIMD4<Double>(repeating: mean)
        var s = SIMD4<Double>(), d = SIMD4<Double>()
        var k = 0
        while k &+ 4 <= count {
            let v = fr.loadUnaligned(fromByteOffset: 8 &* k, as: SIMD4<Double>.self) - m
            s += v * v
            d += v * cr.loadUnaligned(fromByteOffset: 8 &* k, as: SIMD4<Double>.self)
            k &+= 4
        }
        var spread = (s[0] + s[1]) + (s[2] + s[3])
        var dot = (d[0] + d[1]) + (d[2] + d[3])
        while k < count {
            let v = f[k] - mean
            spread += v * v
            dot += v * c[k]
            k &+= 1
        }
        return (spread, dot)
    }
}
