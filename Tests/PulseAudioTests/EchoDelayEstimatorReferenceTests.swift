import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The delay estimator's sums run four lanes wide and its onset matching walks the far onsets only; these runs
/// hold it to the plain version it replaced (kept below as the reference: one sum after another, every frame of
/// the window visited), estimate for estimate.
final class EchoDelayEstimatorReferenceTests: XCTestCase {
    /// Far ends of syllables and of noise bursts; echoes at lags across the range searched (and outside it),
    /// loud and faint; a user talking over the reply; a mic with no echo at all. Every `add` returns the same.
    func testTheEstimatesAreThoseOfThePlainSums() {
        var estimates = 0, compared = 0
        var noise = EchoRoom.Noise(state: 17)
        for scenario in 0..<48 {
            let lag = [-12, -10, -4, 0, 3, 7, 19, 33, 40, 44, 5, 12][scenario % 12]
            let echoDB = [-10.0, -20, -35, -70][scenario / 12]
            let far: [Double]
            if scenario % 2 == 0 {
                far = EchoAlignmentTests.syllableLevels(syllables: 30 + scenario % 7)
            } else {
                var level = -60.0
                far = (0..<700).map { _ in
                    if noise.next() > 1.1 { level = -15 - 12 * abs(noise.next()) } else { level = max(-60, level - 5) }
                    return level
                }
            }
            let talkFrom = scenario % 3 == 0 ? far.count / 2 : Int.max
            var fast = EchoDelayEstimator(), plain = ReferenceEchoDelayEstimator()
            for i in far.indices {
                let echo = i - lag >= 0 && i - lag < far.count ? far[i - lag] + echoDB : -80
                var power = pow(10, echo / 10) + pow(10, -58.0 / 10)
                if i >= talkFrom { power += pow(10, (-20 + 4 * noise.next()) / 10) }
                let near = max(-60, 10 * log10(power) + 0.5 * noise.next())
                let a = fast.add(farLevel: far[i], nearLevel: near)
                let b = plain.add(farLevel: far[i], nearLevel: near)
                XCTAssertEqual(a, b, "scenario \(scenario) (echo \(lag) frames late, \(echoDB) dB), frame \(i)")
                compared += 1
                if a != nil { estimates += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 20_000)
        XCTAssertGreaterThan(estimates, 100, "the runs find echoes too, not only nothing")
    }

    /// A frame's level from integer squares is the Double sum's, to the bit: silence, full scale both ways, noise.
    func testTheLevelIsThePlainSumsToTheBit() {
        let estimator = EchoDelayEstimator(), plain = ReferenceEchoDelayEstimator()
        var noise = EchoRoom.Noise(state: 23)
        var frames: [[Int16]] = [Array(repeating: 0, count: 160), Array(repeating: .max, count: 160),
                                 Array(repeating: .min, count: 160), Array(repeating: 1, count: 160), [], [-3]]
        for scale in [1.0, 30, 1_000, 12_000] {
            frames.append((0..<160).map { _ in Int16(max(-32768, min(32767, (scale * noise.next()).rounded()))) })
        }
        for frame in frames {
            let a = frame.withUnsafeBufferPointer { estimator.level($0) }
            let b = frame.withUnsafeBufferPointer { plain.level($0) }
            XCTAssertEqual(a.bitPattern, b.bitPattern, "\(frame.prefix(3))…: \(a) against \(b)")
        }
    }
}

/// The estimator as it was before its sums were vectorised (stop 38's): the reference for the tests above.
private struct ReferenceEchoDelayEstimator {
    let window = 200, lags = -10...40, interval = 25, minCorrelation = 0.35, silenceDB = -60.0
    let minMatchedOnsets = 3, onsetDB = 6.0
    private var far: [Double] = [], near: [Double] = [], farActive: [Bool] = []
    private var lastFar: Double?, lastNear: Double?
    private var sinceEstimate = 0

    func level(_ frame: UnsafeBufferPointer<Int16>) -> Double {
        var s = 0.0
        for v in frame { s += Double(v) * Double(v) }
        let db = 10 * log10(max(s / Double(max(1, frame.count)), 1e-3) / (32768.0 * 32768.0))
        return max(db, silenceDB)
    }

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

    private func estimate() -> Int? {
        let nearStart = near.count - window + min(0, lags.lowerBound)
        guard farActive.filter({ $0 }).count > window / 5 else { return nil }
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
        let rival = scores.filter { abs($0.lag - best.lag) > 3 }.map(\.r).max() ?? 0
        guard best.r - rival >= 0.05 else { return nil }
        let matched = matchedOnsets(lag: best.lag, near: nearRange)
        guard matched >= minMatchedOnsets else { return nil }
        let chance = lags.lazy.filter { abs($0 - best.lag) > 3 }.map { self.matchedOnsets(lag: $0, near: nearRange) }.max() ?? 0
        return matched > chance ? best.lag : nil
    }

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
