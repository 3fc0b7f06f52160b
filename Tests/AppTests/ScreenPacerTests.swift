import ParleyTesting
import PulseAudio
import PulseAudioTesting
import TUI
import XCTest

#if canImport(Glibc)
import Glibc
#endif

@testable import App
@testable import Conversation

/// The meters' cadence: 20 fps while a bar moves, 5 fps while the open mic hears only the room, and a voice
/// starting wakes the loop at once (the bar moves with the first loud chunk, not a 5 fps frame later).
final class ScreenPacerTests: XCTestCase {
    private let n = AudioFormat.capture.sampleCount(milliseconds: 20)
    private var room: [Int16] { (0..<n).map { Int16($0 % 7 - 3) * 8 } }  // about -66 dBFS
    private var voice: [Int16] { (0..<n).map { Int16(6000 * sin(2 * Double.pi * 300 * Double($0) / 16_000)) } }

    func testMetersDrawAtFiveFramesASecondInARoomAndTwentyForAVoiceOrAReply() throws {
        let clock = ManualTime()
        let mic = FakeAudioSource(time: clock.source)
        let speaker = FakeAudioSink(time: clock.source)
        let events = EventQueue()
        var config = Config()
        config.mode = .open
        let audio = AudioIO(devices: SoundDevices(source: mic, sink: speaker), config: config, events: events, time: clock.source)
        let pacer = ScreenPacer(renderer: FrameRenderer(screen: GridScreen(rows: 30, columns: 100)))
        let state = AppState(config: config, demo: false, audioAvailable: true, kitty: false)
        audio.perform(.open(for: .open))

        for _ in 0..<10 { mic.feed(room); clock.advance(0.02) }
        _ = events.drain()
        XCTAssertEqual(pacer.meterInterval(state, audio: audio), 0.2, "the room alone: 5 fps")
        XCTAssertNil(pacer.nextMeterFrame(), "nothing drawn yet")
        pacer.draw(state, audio: audio, now: clock.now)
        XCTAssertEqual(pacer.nextMeterFrame(), clock.now + 0.2, "the loop waits a 5 fps frame")

        mic.feed(voice)
        XCTAssertTrue(Self.readable(events.fd), "a voice rising over the room wakes the loop")
        XCTAssertEqual(pacer.meterInterval(state, audio: audio), 1.0 / 20, "a voice: 20 fps")
        _ = events.drain()
        mic.feed(voice)
        XCTAssertFalse(Self.readable(events.fd), "only the rise wakes it, not every loud chunk")

        for _ in 0..<250 { mic.feed(room); clock.advance(0.02) }  // the held peak falls back too
        pacer.draw(state, audio: audio, now: clock.now)
        XCTAssertEqual(pacer.meterInterval(state, audio: audio), 0.2, "back to the room, the peak mark down: 5 fps")
        speaker.write(voice)
        XCTAssertEqual(pacer.meterInterval(state, audio: audio), 1.0 / 20, "a reply playing: 20 fps")
        let meterFrame = clock.now  // the meters were read at the draw above
        clock.advance(0.02)
        pacer.draw(state, audio: audio, now: clock.now)
        let next = try XCTUnwrap(pacer.nextMeterFrame())
        XCTAssertEqual(next, meterFrame + 1.0 / 20, accuracy: 1e-9, "a 20 fps frame after the last meter frame")
        audio.close()
    }

    private static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }
}
