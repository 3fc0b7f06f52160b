import Foundation
@testable import PulseAudio

/// Test signals and measurements.
package enum Signals {
    /// A sine of `frequency` Hz with peak `amplitude` (0...1 of full scale).
    package static func sine(frequency: Double, rate: Int, seconds: Double, amplitude: Double = 0.5, phase: Double = 0) -> [Int16] {
        let n = Int(Double(rate) * seconds)
        return (0..<n).map { i in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(i) / Double(rate) + phase)).rounded())
        }
    }

    /// Frequency from rising zero crossings, interpolated between samples.
    package static func frequency(_ x: [Int16], rate: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<max(1, x.count) where x[i - 1] < 0 && x[i] >= 0 {
            let a = Double(x[i - 1]), b = Double(x[i])
            crossings.append(Double(i - 1) + (-a) / (b - a))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(rate))
    }

    /// The frequency of each `window`-sample stretch of `x` (from its zero crossings), in order. A tone resampled
    /// at the wrong rate is off in every window; a stretch a sound server played or recorded at another rate
    /// for a while (catching up after a late graph cycle) is off in the windows that hold it.
    package static func windowFrequencies(_ x: [Int16], rate: Int, window: Int) -> [Double] {
        stride(from: 0, to: x.count - window + 1, by: window).map { frequency(Array(x[$0..<($0 + window)]), rate: rate) }
    }

    /// The median of `windowFrequencies`: the tone's frequency, whatever one such stretch did to its windows.
    package static func medianFrequency(_ x: [Int16], rate: Int, window: Int) -> Double {
        let f = windowFrequencies(x, rate: rate, window: window).sorted()
        return f.isEmpty ? 0 : f[f.count / 2]
    }

    /// The power of `frequency` in `x` relative to a full-scale sine, in dB (Goertzel).
    package static func goertzelDB(_ x: [Int16], frequency: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * frequency / Double(rate)
        let c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = Double(v) / 32768 + c * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - c * s1 * s2
        let amplitude = 2 * power.squareRoot() / Double(x.count)
        return 20 * log10(max(amplitude, 1e-12))
    }

    package static func rmsDB(_ x: ArraySlice<Int16>) -> Double { AudioLevel(measuring: x).rmsDBFS }
}

/// Collects what another thread reports (captured chunks, stream events, reads) and lets a test wait for a
/// condition on it with a deadline, without sleeping.
package final class Collector<Element>: @unchecked Sendable {
    private let cond = NSCondition()
    private var items: [Element] = []

    package init() {}

    package func append(_ e: Element) {
        cond.lock()
        items.append(e)
        cond.broadcast()
        cond.unlock()
    }

    package var all: [Element] {
        cond.lock()
        defer { cond.unlock() }
        return items
    }

    /// Waits until `predicate` holds over the items so far, or `timeout` seconds. True if it held.
    @discardableResult
    package func wait(timeout: Double, until predicate: ([Element]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        defer { cond.unlock() }
        while !predicate(items) {
            if !cond.wait(until: deadline) { return predicate(items) }
        }
        return true
    }
}

package typealias ChunkRecorder = Collector<AudioChunk>
package typealias ChunkEvents = Collector<AudioEvent>

extension Collector where Element == AudioChunk {
    package var samples: [Int16] { all.flatMap(\.samples) }
}
