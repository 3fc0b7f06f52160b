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
        var s = 0.0
        for v in frame { s += Double(v) * Double(v) }
        let db = 10 * log10(max(s / Double(max(1, frame.count)), 1e-3) / (32768.0 * 32768.0))
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
        let nearStart = near.count - window + min(0, lags.lowerBound)
        let active = farActive.filter { $0 }.count
        guard active > window / 5 else { return nil }
        func stats(_ x: ArraySlice<Double>) -> (mean: Double, norm: Double) {
            let m = x.reduce(0, +) / Double(x.count)
            return (m, x.reduce(0) { $0 + ($1 - m) * ($1 - m) }.squareRoot())
        }
        let nearRange = nearStart..<(nearStart + window)
        let n = stats(near[nearRange])
        guard n.norm > 0 else { return nil }
        var scores: [(lag: Int, r: Double)] = []
        for lag in lags {
            let farRange = (nearRange.lowerBound - lag)..<(nearRange.upperBound - lag)
            guard farRange.lowerBound >= 0, farRange.upperBound <= far.count else { continue }
            let f = stats(far[farRange])
            guard f.norm > 0 else { continue }
            var dot = 0.0
            for k in 0..<window { dot += (near[nearRange.lowerBound + k] - n.mean) * (far[farRange.lowerBound + k] - f.mean) }
            scores.append((lag, dot / (n.norm * f.norm)))
        }
        guard let best = scores.max(by: { $0.r < $1.r }), best.r >= minCorrelation else { return nil }
        // A clear peak: nothing well away from it comes close.
        let rival = scores.filter { abs($0.lag - best.lag) > 3 }.map(\.r).max() ?? 0
        guard best.r - rival >= 0.05 else { return nil }
        // Several far onsets heard again at that lag, and more of them than at any lag well away from it: a user
        // talking over the reply has onsets of their own, and some follow far onsets by chance at whatever lag
        // (three at the best lag, three at another, in the double talk that re-pointed the far end 40 or 370 ms
        // off); an echo repeats the far end at one lag only.
        let matched = matchedOnsets(lag: best.lag, near: nearRange)
        guard matched >= minMatchedOnsets else { return nil }
        let chance = lags.lazy.filter { abs($0 - best.lag) > 3 }.map { self.matchedOnsets(lag: $0, near: nearRange) }.max() ?? 0
        return matched > chance ? best.lag : nil
    }

    /// The far onsets that the mic repeats `lag` frames later in `near`, within a frame (the echo's onset can
    /// straddle two); a rise over a few frames is one onset.
    private func matchedOnsets(lag: Int, near nearRange: Range<Int>) -> Int {
        guard nearRange.lowerBound - lag >= 0, nearRange.upperBound - lag <= far.count else { return 0 }
        var matched = 0
        var k = 0
        while k < window {
            let i = nearRange.lowerBound + k
            if far[i - lag] >= onsetDB,
               near[max(nearRange.lowerBound, i - 1)...min(nearRange.upperBound - 1, i + 1)].contains(where: { $0 >= onsetDB }) {
                matched += 1
                k += 3
            } else {
                k += 1
            }
        }
        return matched
    }
}
