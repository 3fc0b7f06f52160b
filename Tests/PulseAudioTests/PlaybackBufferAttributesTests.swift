import XCTest
@testable import PulseAudio

/// What playback asks of the server: the plain request on PulseAudio; on PipeWire's server a `minreq` of 40 ms
/// (its asks for more come that much apart) with the node latency the plain request gives.
final class PlaybackBufferAttributesTests: XCTestCase {
    private let format = AudioFormat.playback  // 48 bytes a millisecond
    private func ms(_ bytes: UInt32) -> Double { Double(bytes) / 48 }

    func testPulseAudioGetsThePlainRequest() {
        let a = PlaybackBufferAttributes(targetMilliseconds: 80, writeMilliseconds: 10, prebufferMilliseconds: nil,
                                         format: format, pipeWire: false)
        XCTAssertEqual(a, PlaybackBufferAttributes(tlength: 80 * 48, prebuf: 10 * 48, minreq: 10 * 48))
        let small = PlaybackBufferAttributes(targetMilliseconds: 5, writeMilliseconds: 10, prebufferMilliseconds: 20,
                                             format: format, pipeWire: false)
        XCTAssertEqual(small, PlaybackBufferAttributes(tlength: 5 * 48, prebuf: 5 * 48, minreq: 5 * 48),
                       "minreq and prebuf no more than the target")
    }

    /// Each target parley asks of PipeWire (the canceller's 40 ms, push-to-talk's 20, a configured 80 and 5): the
    /// server's node latency is the same as with the plain request, `minreq` is 40 ms, and prebuf is unchanged.
    func testPipeWireKeepsTheNodeLatencyWithFewerAsks() {
        for (target, latency) in [(40, 10.0), (20, 10.0), (80, 30.0), (5, 5.0)] {
            let plain = PlaybackBufferAttributes(targetMilliseconds: target, writeMilliseconds: 10,
                                                 prebufferMilliseconds: nil, format: format, pipeWire: false)
            let a = PlaybackBufferAttributes(targetMilliseconds: target, writeMilliseconds: 10,
                                             prebufferMilliseconds: nil, format: format, pipeWire: true)
            let before = PlaybackBufferAttributes.pipeWireNodeLatency(tlength: plain.tlength, minreq: plain.minreq, format: format)
            let after = PlaybackBufferAttributes.pipeWireNodeLatency(tlength: a.tlength, minreq: a.minreq, format: format)
            XCTAssertEqual(ms(before), latency, "\(target) ms asked: the node latency as before")
            XCTAssertEqual(after, before, "\(target) ms asked: the same node latency")
            XCTAssertEqual(ms(a.minreq), 40, "\(target) ms asked")
            XCTAssertGreaterThan(a.tlength, 2 * a.minreq, "the latency comes from tlength, not from minreq")
            XCTAssertEqual(a.prebuf, plain.prebuf)
        }
    }

    /// The server's rule, as pipewire-pulse applies it to a stream that adjusts its latency.
    func testPipeWireNodeLatency() {
        XCTAssertEqual(PlaybackBufferAttributes.pipeWireNodeLatency(tlength: 40 * 48, minreq: 10 * 48, format: format), 10 * 48)
        XCTAssertEqual(PlaybackBufferAttributes.pipeWireNodeLatency(tlength: 20 * 48, minreq: 10 * 48, format: format), 10 * 48,
                       "tlength no more than twice minreq: minreq")
        XCTAssertEqual(PlaybackBufferAttributes.pipeWireNodeLatency(tlength: 25 * 48 + 2, minreq: 10 * 48, format: format),
                       2 * 48 + 24, "whole frames")
    }
}
