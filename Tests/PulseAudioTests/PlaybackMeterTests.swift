import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The speaker's meter follows what is heard 20 ms at a time, however large the blocks written to the server.
final class PlaybackMeterTests: XCTestCase {
    private let format = AudioFormat.playback
    private func ns(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    /// A 400 ms block (the most the server is handed at once, `aheadMilliseconds`): 200 ms loud, then 200 ms
    /// quiet. Metered whole, its level was one figure for the whole block, and past the meter's 250 ms staleness
    /// the bar fell to silence while the block still played.
    func testALongBlockMovesTheBarAsItPlays() {
        var meter = PlaybackMeter(format: format)
        let loud = Signals.sine(frequency: 440, rate: format.sampleRate, seconds: 0.2, amplitude: 0.5)
        let quiet = Signals.sine(frequency: 440, rate: format.sampleRate, seconds: 0.2, amplitude: 0.05)
        let block = loud + quiet
        block.withUnsafeBufferPointer { meter.place($0, heardFrom: ns(10)) }

        XCTAssertLessThan(meter.reading(at: ns(9.99)).rmsDBFS, -90, "nothing heard before the block's time")
        XCTAssertEqual(meter.reading(at: ns(10.01)).rmsDBFS, -9.03, accuracy: 0.3, "the loud start")
        XCTAssertEqual(meter.reading(at: ns(10.19)).rmsDBFS, -9.03, accuracy: 0.3)
        XCTAssertEqual(meter.reading(at: ns(10.21)).rmsDBFS, -29.03, accuracy: 0.3, "the quiet end, as it plays")
        XCTAssertEqual(meter.reading(at: ns(10.39)).rmsDBFS, -29.03, accuracy: 0.3,
                       "still playing 390 ms in: not taken for silence")
        XCTAssertEqual(meter.reading(at: ns(10.39)).heldPeakDBFS, -6.02, accuracy: 0.3, "the loud start's peak held")
        XCTAssertLessThan(meter.reading(at: ns(10.8)).rmsDBFS, -90, "the block over: silence once stale")
    }

    /// Every 20 ms piece moves the meter when its time comes, even when a frame looks only now and then: the
    /// held peak keeps a loud piece the screen never saw as the current level.
    func testAPieceBetweenTwoLooksStillMarksThePeak() {
        var meter = PlaybackMeter(format: format)
        let piece = format.sampleCount(milliseconds: PlaybackMeter.segmentMilliseconds)
        var block = [Int16](repeating: 0, count: piece * 5)
        for i in (piece * 2)..<(piece * 3) { block[i] = i % 2 == 0 ? 16_000 : -16_000 }
        block.withUnsafeBufferPointer { meter.place($0, heardFrom: ns(1)) }
        let r = meter.reading(at: ns(1.099))
        XCTAssertLessThan(r.rmsDBFS, -90, "the last piece is silent")
        XCTAssertEqual(r.heldPeakDBFS, -6.2, accuracy: 0.2, "the third piece's peak is held")
    }

    func testSilenceDropsTheBarAndForgetsWhatWasWritten() {
        var meter = PlaybackMeter(format: format)
        let tone = Signals.sine(frequency: 440, rate: format.sampleRate, seconds: 1, amplitude: 0.5)
        tone.withUnsafeBufferPointer { meter.place($0, heardFrom: ns(5)) }
        XCTAssertGreaterThan(meter.reading(at: ns(5.5)).rmsDBFS, -12)
        meter.silence(at: ns(5.5))
        XCTAssertLessThan(meter.reading(at: ns(5.5)).rmsDBFS, -90, "flushed: the bar drops at once")
        XCTAssertLessThan(meter.reading(at: ns(5.7)).rmsDBFS, -90, "and the flushed rest is never shown")
    }

    /// A screen that stops looking (suspended with ^Z) does not make the meter hold more than 20 s of pieces:
    /// the oldest go, and what is heard now still reads right.
    func testPiecesNobodyReadsAreBounded() {
        var meter = PlaybackMeter(format: format)
        let second = Signals.sine(frequency: 440, rate: format.sampleRate, seconds: 1, amplitude: 0.5)
        for s in 0..<60 { second.withUnsafeBufferPointer { meter.place($0, heardFrom: ns(Double(s))) } }
        XCTAssertEqual(meter.pendingCount, 1000)
        XCTAssertEqual(meter.reading(at: ns(59.5)).rmsDBFS, -9.03, accuracy: 0.3)
        XCTAssertEqual(meter.pendingCount, 24, "the pieces after 59.5 s wait")
    }
}
