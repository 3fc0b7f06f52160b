import Foundation
@testable import PulseAudio

/// Test signals and measurements.
enum Signals {
    /// A sine of `frequency` Hz with peak `amplitude` (0...1 of full scale).
    static func sine(frequency: Double, rate: Int, seconds: Double, amplitude: Double = 0.5, phase: Double = 0) -> [Int16] {
        let n = Int(Double(rate) * seconds)
        return (0..<n).map { i in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(i) / Double(rate) + phase)).rounded())
        }
    }

    /// Frequency from rising zero crossings, interpolated between samples.
    static func frequency(_ x: [Int16], rate: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<max(1, x.count) where x[i - 1] < 0 && x[i] >= 0 {
            let a = Double(x[i - 1]), b = Double(x[i])
            crossings.append(Double(i - 1) + (-a) / (b - a))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(rate))
    }

    /// The power of `frequency` in `x` relative to a full-scale sine, in dB (Goertzel).
    static func goertzelDB(_ x: [Int16], frequency: Double, rate: Int) -> Double {
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

    static func rmsDB(_ x: ArraySlice<Int16>) -> Double { AudioLevel(measuring: x).rmsDBFS }
}

/// Collects captured chunks and lets a test wait for a condition on them without sleeping.
final class ChunkRecorder: @unchecked Sendable {
    private let cond = NSCondition()
    private var chunks: [AudioChunk] = []

    func append(_ c: AudioChunk) {
        cond.lock()
        chunks.append(c)
        cond.broadcast()
        cond.unlock()
    }

    var all: [AudioChunk] {
        cond.lock()
        defer { cond.unlock() }
        return chunks
    }

    var samples: [Int16] { all.flatMap(\.samples) }

    /// Waits until `predicate` holds over the chunks so far, or `timeout` seconds. True if it held.
    @discardableResult
    func wait(timeout: Double, until predicate: ([AudioChunk]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        defer { cond.unlock() }
        while !predicate(chunks) {
            if !cond.wait(until: deadline) { return predicate(chunks) }
        }
        return true
    }
}

/// Counts events from another thread (e.g. chunks read) and lets a test wait for a count with a deadline.
final class ReadCounter: @unchecked Sendable {
    private let cond = NSCondition()
    private var n = 0

    func increment() {
        cond.lock()
        n += 1
        cond.broadcast()
        cond.unlock()
    }

    var count: Int {
        cond.lock()
        defer { cond.unlock() }
        return n
    }

    /// Waits until the count reaches `target`, or `timeout` seconds. True if it did.
    func wait(atLeast target: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        defer { cond.unlock() }
        while n < target {
            if !cond.wait(until: deadline) { return n >= target }
        }
        return true
    }
}
