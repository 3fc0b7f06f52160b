@testable import App
import PulseAudio
import XCTest

final class MicFramingTests: XCTestCase {
    private func chunk(_ dbfs: Double, endsGate: Bool = false) -> AudioChunk {
        AudioChunk(samples: [Int16](repeating: 1, count: 320), timestamp: 0,
                   level: AudioLevel(rmsDBFS: dbfs, peakDBFS: dbfs, clipped: false), sequence: 0, endsGate: endsGate)
    }

    func testSilenceGoesOutInFramesOfFiveChunksAndSpeechAtOnceWithWhatWasHeld() {
        var f = MicFraming()
        var sizes: [Int] = []
        for _ in 0..<12 { if let b = f.frame(chunk(-80), batching: true) { sizes.append(b.count) } }
        XCTAssertEqual(sizes, [3200, 3200], "ten silent chunks: two 100 ms frames, two chunks held")
        let onset = f.frame(chunk(-20), batching: true)
        XCTAssertEqual(onset?.count, 3 * 640, "the loud chunk leaves at once, after the two held ones")
    }

    func testAfterSpeechTheHangoverKeeps20msFramesForOneAndAHalfSeconds() {
        var f = MicFraming()
        XCTAssertNotNil(f.frame(chunk(-20), batching: true))
        for k in 0..<75 { XCTAssertEqual(f.frame(chunk(-80), batching: true)?.count, 640, "quiet chunk \(k) of the hangover") }
        XCTAssertNil(f.frame(chunk(-80), batching: true), "then silence is held")
    }

    func testPushToTalkAndTheGateClosingNeverHold() {
        var f = MicFraming()
        for _ in 0..<10 { XCTAssertEqual(f.frame(chunk(-80), batching: false)?.count, 640) }
        var g = MicFraming()
        XCTAssertNil(g.frame(chunk(-80), batching: true))
        XCTAssertEqual(g.frame(chunk(-80, endsGate: true), batching: true)?.count, 1280, "the last chunk takes what was held")
    }
}
