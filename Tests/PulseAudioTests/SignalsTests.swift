import Foundation
import PulseAudioTesting
import XCTest

/// The measurements the live audio tests judge the sound servers by.
final class SignalsTests: XCTestCase {
    /// A 1000 Hz tone with a stretch played fast (a server catching up on a late graph cycle) reads high over the
    /// whole tone and 1000 Hz in the median of 50 ms windows; a tone really off (a wrong rate) is off both ways.
    func testTheMedianFrequencyIgnoresOneStretchButNotAWrongRate() {
        var phase = 0.0
        let tone: [Int16] = (0..<12_800).map { i in
            let f = (6_400..<8_000).contains(i) ? 1_150.0 : 1_000.0  // 100 ms at +15 %
            phase += 2 * .pi * f / 16_000
            return Int16((0.5 * 32767 * sin(phase)).rounded())
        }
        XCTAssertGreaterThan(Signals.frequency(tone, rate: 16_000), 1_015)
        XCTAssertEqual(Signals.medianFrequency(tone, rate: 16_000, window: 800), 1_000, accuracy: 1)
        let windows = Signals.windowFrequencies(tone, rate: 16_000, window: 800)
        XCTAssertEqual(windows.count, 16)
        XCTAssertEqual(windows.filter { abs($0 - 1_000) > 10 }.count, 2, "the fast stretch's windows: \(windows)")

        let fast = Signals.sine(frequency: 1_050, rate: 16_000, seconds: 0.8)
        XCTAssertEqual(Signals.frequency(fast, rate: 16_000), 1_050, accuracy: 1)
        XCTAssertEqual(Signals.medianFrequency(fast, rate: 16_000, window: 800), 1_050, accuracy: 1)
    }
}
