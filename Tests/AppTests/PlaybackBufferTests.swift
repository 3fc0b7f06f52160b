import XCTest

@testable import App

/// The server buffer parley asks for playback: the configured one, and more while the echo canceller works, by
/// server (`AudioIO.playbackBuffer`; `EchoEndToEndTests` runs the canceller on both servers).
final class PlaybackBufferTests: XCTestCase {
    func testTheCancellerWantsEightyMillisecondsOnPulseAudioAndFortyOnPipeWire() {
        XCTAssertEqual(AudioIO.playbackBuffer(20, cancelling: true, pipeWire: false), 80)
        XCTAssertEqual(AudioIO.playbackBuffer(20, cancelling: true, pipeWire: true), 40,
                       "PipeWire's server plays a reply's first sample 45 ms late with 80")
    }

    func testWithoutTheCancellerOrWithMoreConfiguredTheConfiguredBufferStands() {
        XCTAssertEqual(AudioIO.playbackBuffer(20, cancelling: false, pipeWire: false), 20)
        XCTAssertEqual(AudioIO.playbackBuffer(20, cancelling: false, pipeWire: true), 20)
        XCTAssertEqual(AudioIO.playbackBuffer(120, cancelling: true, pipeWire: true), 120)
        XCTAssertEqual(AudioIO.playbackBuffer(120, cancelling: true, pipeWire: false), 120)
    }
}
