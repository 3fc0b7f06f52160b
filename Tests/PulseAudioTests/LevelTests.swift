import PulseAudioTesting
import XCTest
@testable import PulseAudio

final class LevelTests: XCTestCase {
    func testFullScaleSineReadsMinus3dBRMSAnd0dBPeak() {
        let x = Signals.sine(frequency: 1000, rate: 16_000, seconds: 0.1, amplitude: 1.0, phase: .pi / 2)
        let l = AudioLevel(measuring: x)
        XCTAssertEqual(l.rmsDBFS, -3.01, accuracy: 0.05)
        XCTAssertEqual(l.peakDBFS, 0, accuracy: 0.01)
        XCTAssertTrue(l.clipped)
    }

    func testHalfScaleSine() {
        let x = Signals.sine(frequency: 440, rate: 16_000, seconds: 0.5, amplitude: 0.5)
        let l = x.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
        XCTAssertEqual(l.rmsDBFS, -9.03, accuracy: 0.05)
        XCTAssertEqual(l.peakDBFS, -6.02, accuracy: 0.05)
        XCTAssertFalse(l.clipped)
    }

    func testSilenceIsTheFloorNotMinusInfinity() {
        let l = AudioLevel(measuring: [Int16](repeating: 0, count: 320))
        XCTAssertEqual(l.rmsDBFS, AudioLevel.floorDBFS)
        XCTAssertEqual(l.peakDBFS, AudioLevel.floorDBFS)
        XCTAssertEqual(AudioLevel(measuring: [Int16]()), .silence)
    }

    func testNegativeFullScaleClips() {
        XCTAssertTrue(AudioLevel(measuring: [0, -32768, 5]).clipped)
        XCTAssertFalse(AudioLevel(measuring: [0, -32000, 5]).clipped)
    }

    func testPeakHoldThenDecay() {
        var m = LevelMeter(peakHold: 1.0, peakDecayDBPerSecond: 20)
        m.update(AudioLevel(rmsDBFS: -20, peakDBFS: -6, clipped: false), at: 10)
        m.update(AudioLevel(rmsDBFS: -40, peakDBFS: -30, clipped: false), at: 10.5)
        var r = m.reading(at: 10.5)
        XCTAssertEqual(r.peakDBFS, -30)
        XCTAssertEqual(r.heldPeakDBFS, -6, "held during the hold time")
        r = m.reading(at: 11.5)
        XCTAssertEqual(r.heldPeakDBFS, -16, accuracy: 0.001, "decays 20 dB/s after the hold")
        XCTAssertEqual(m.reading(at: 100).heldPeakDBFS, AudioLevel.floorDBFS)
        // A new higher peak replaces the decayed hold.
        m.update(AudioLevel(rmsDBFS: -20, peakDBFS: -10, clipped: false), at: 11.5)
        XCTAssertEqual(m.reading(at: 11.6).heldPeakDBFS, -10)
    }

    func testClipIndicatorHoldsThenClears() {
        var m = LevelMeter(clipHold: 2)
        m.update(AudioLevel(rmsDBFS: -3, peakDBFS: 0, clipped: true), at: 1)
        XCTAssertTrue(m.reading(at: 2.9).isClipping)
        XCTAssertFalse(m.reading(at: 3.1).isClipping)
        XCTAssertEqual(m.reading(at: 3.1).clipCount, 1)
    }

    func testStaleLevelReadsAsSilence() {
        var m = LevelMeter(staleAfter: 0.25)
        m.update(AudioLevel(rmsDBFS: -20, peakDBFS: -10, clipped: false), at: 1)
        XCTAssertEqual(m.reading(at: 1.1).rmsDBFS, -20)
        XCTAssertEqual(m.reading(at: 1.5).rmsDBFS, AudioLevel.floorDBFS)
    }

    func testFractionForDrawing() {
        XCTAssertEqual(LevelReading.fraction(-100), 0)
        XCTAssertEqual(LevelReading.fraction(0), 1)
        XCTAssertEqual(LevelReading.fraction(-30), 0.5, accuracy: 1e-9)
        XCTAssertEqual(LevelReading.fraction(6), 1)
    }

    /// The eight-at-a-time measure of a buffer gives what the sample-at-a-time one gives: every length around
    /// the vector's, full scale both ways (the squares' pairs at their largest), noise and a tail.
    func testTheBufferMeasureAgreesWithTheSampleBySampleOne() {
        var seed: UInt32 = 7
        func next() -> Int16 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int16(truncatingIfNeeded: seed >> 16)
        }
        var cases: [[Int16]] = (0...33).map { n in (0..<n).map { _ in next() } }
        cases.append([Int16](repeating: -32768, count: 4000))
        cases.append([Int16](repeating: 32767, count: 17))
        cases.append((0..<2000).map { $0 % 3 == 0 ? -32768 : next() / 64 })
        cases.append((0..<319).map { _ in next() / 8 } + [-32768])
        for x in cases {
            let buffer = x.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
            XCTAssertEqual(buffer, AudioLevel(measuring: x[...]), "\(x.count) samples")
        }
    }
}
