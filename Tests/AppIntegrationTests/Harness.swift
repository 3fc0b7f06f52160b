import Foundation
import ParleyTesting
import XCTest

@testable import App

/// A private PulseAudio daemon's extra devices for a test: a sink whose monitor is the mic. A test that uses it
/// is named in the sound lane of `scripts/test.sh`, which runs such tests one at a time.
struct TestAudio {
    let server: String

    static func fromEnvironment() throws -> TestAudio {
        guard let s = ProcessInfo.processInfo.environment["PARLEY_TEST_PULSE_SERVER"], !s.isEmpty else {
            throw XCTSkip("set PARLEY_TEST_PULSE_SERVER (scripts/pulse-daemon.sh start DIR); scripts/test.sh does")
        }
        return TestAudio(server: s)
    }

    func pactl(_ args: String...) throws -> String {
        try shell(["env", "PULSE_SERVER=\(server)", "pactl"] + args).out
    }

    /// A null sink named `name`; what is played to it is heard on `name.monitor`.
    func ensureSink(_ name: String) throws {
        if try pactl("list", "short", "sinks").contains(name) { return }
        _ = try pactl("load-module", "module-null-sink", "sink_name=\(name)")
    }

    /// Plays a WAV file into a sink and waits until it has played.
    func play(_ wav: String, to sink: String) throws {
        let r = try shell(["env", "PULSE_SERVER=\(server)", "paplay", "--device=\(sink)", wav], timeout: 30)
        XCTAssertEqual(r.status, 0, r.err)
    }

    /// Records a sink's monitor as 16 kHz mono s16le for `seconds`.
    func record(_ sink: String, seconds: Double) throws -> [Int16] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID()).raw").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = try shell(["sh", "-c", "PULSE_SERVER=\(server) timeout \(seconds) parec --device=\(sink).monitor --format=s16le --rate=16000 --channels=1 --raw > \(file); true"], timeout: seconds + 10)
        XCTAssertEqual(r.status, 0, r.err)
        let data = FileManager.default.contents(atPath: file) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

/// The fundamental frequency of voiced audio, by autocorrelation over the loudest stretch (Hz).
func pitch(_ samples: [Int16], rate: Double = 16000) -> Double? {
    let x = samples.map { Double($0) }
    guard x.count > 4000 else { return nil }
    // Use the loudest 0.5 s window.
    let win = 8000
    var best = 0, bestEnergy = 0.0
    var i = 0
    while i + win <= x.count {
        let e = x[i..<(i + win)].reduce(0) { $0 + $1 * $1 }
        if e > bestEnergy { bestEnergy = e; best = i }
        i += 1000
    }
    guard bestEnergy > 0 else { return nil }
    let w = Array(x[best..<(best + win)])
    let minLag = Int(rate / 400), maxLag = Int(rate / 60)
    var bestLag = 0, bestCorr = -Double.infinity
    for lag in minLag...maxLag {
        var c = 0.0
        for j in 0..<(win - lag) { c += w[j] * w[j + lag] }
        if c > bestCorr { bestCorr = c; bestLag = lag }
    }
    return bestLag > 0 ? rate / Double(bestLag) : nil
}
