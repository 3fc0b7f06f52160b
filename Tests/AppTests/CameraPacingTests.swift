import Foundation
import ParleyLock
import ParleyTesting
import TUI
import XCTest

@testable import App

/// A frame source on a clock the test moves: a new frame every `1 / rate` seconds from its start, each with its
/// side-pane picture, until it is stopped or told to fail.
final class ClockedFrames: FrameSource {
    private let clock: ManualTime
    private let started: Double
    private let rate: Double
    private let state = Locked((stopped: false, failure: String?.none))

    init(clock: ManualTime, rate: Double) {
        self.clock = clock
        started = clock.now
        self.rate = rate
    }

    var latest: (jpeg: Data, serial: Int)? {
        let serial = Int(((clock.now - started) * rate).rounded(.down)) + 1
        return (Data([0xFF, 0xD8, UInt8(truncatingIfNeeded: serial), 0xFF, 0xD9]), serial)
    }

    var thumbnail: Thumbnail? { Thumbnail(width: 1, height: 1, rgb: [0, 0, 0], caption: "fake") }
    var failure: String? { state.withLock { $0.failure } }
    var stopped: Bool { state.withLock { $0.stopped } }
    func fail(_ why: String) { state.withLock { $0.failure = why } }
    func stop() { state.withLock { $0.stopped = true } }
}

/// The camera's pacing rules with a fake source on a hand-moved clock: frames go out at most once a second and
/// only while the user talks (or always, when asked), none while silent or with sharing off; the source runs
/// only while frames are wanted. The real ffmpeg source is in `CameraCaptureTests`.
final class CameraPacingTests: XCTestCase {
    let clock = ManualTime()
    /// When each frame reached the wire, on the test's clock.
    let sent = Locked<[Double]>([])
    let thumbnails = Locked(0)
    /// Every source started, newest last.
    let started = Locked<[ClockedFrames]>([])
    var missing: String?

    func streamer(timing: VisionSettings.FrameTiming = .talking, rate: Double = 2) -> FrameStreamer {
        let wire = VideoWire(time: clock.source) { [clock, sent] _ in sent.withLock { $0.append(clock.now) }; return true }
        let sources = FrameSources(check: { [missing] _ in missing }, start: { [clock, started] _, _ in
            let source = ClockedFrames(clock: clock, rate: rate)
            started.withLock { $0.append(source) }
            return source
        })
        return FrameStreamer(input: CaptureInput(label: "camera fake", arguments: []), resolution: .low, timing: timing, wire: wire,
                             sources: sources) { [thumbnails] _, thumb in if thumb != nil { thumbnails.withLock { $0 += 1 } } }
    }

    /// Seconds after `start` at which frames went out.
    func sentAfter(_ start: Double) -> [Double] { sent.withLock { $0 }.map { $0 - start } }

    /// Moves the clock for `seconds` in steps of 1/8 s (about the streamer's 100 ms tick, and exact in binary, so
    /// a second is a second), ticking after each.
    func run(_ s: FrameStreamer, for seconds: Double) {
        for _ in 0..<Int((seconds * 8).rounded()) {
            clock.advance(0.125)
            s.tick()
        }
    }

    func testFramesGoOutOnlyWhileTalkingAndAtMostOnceASecond() {
        let s = streamer()
        defer { s.stop() }
        let start = clock.now
        s.setSharing(true)
        XCTAssertFalse(s.capturing, "nothing runs while the user is silent")
        run(s, for: 2)
        XCTAssertEqual(sentAfter(start), [], "no frames while silent")
        XCTAssertEqual(s.status.headerText, "camera fake · 0 frames · waits for you to talk")

        s.setTalking(true)
        XCTAssertTrue(s.capturing)
        s.tick()
        run(s, for: 3.5)
        XCTAssertEqual(sentAfter(start), [2, 3, 4, 5], "the first frame at once, then one a second")
        s.setTalking(false)
        XCTAssertFalse(s.capturing, "the source stops when the user stops talking")
        XCTAssertEqual(started.withLock { $0.map(\.stopped) }, [true])
        run(s, for: 3)
        XCTAssertEqual(sent.withLock { $0.count }, 4, "none after talking stopped")

        s.setTalking(true)
        s.tick()
        XCTAssertEqual(started.withLock { $0.count }, 2, "talking again starts a new source")
        XCTAssertEqual(sentAfter(start).last, 8.5)
        s.setSharing(false)
        XCTAssertFalse(s.capturing)
        XCTAssertEqual(thumbnails.withLock { $0 }, 5, "each frame sent comes with its side-pane picture")
        XCTAssertEqual(s.status.framesSent, 5)
        XCTAssertEqual(s.status.bytesPerFrame, 5)
        XCTAssertEqual(s.status.headerText, "camera fake off — nothing captured")
    }

    func testAlwaysSendsWhileSilentButNeverAFrameTwice() {
        let s = streamer(timing: .always, rate: 0.5)
        defer { s.stop() }
        let start = clock.now
        s.setSharing(true)
        XCTAssertTrue(s.capturing, "frames are wanted without talking")
        s.tick()
        run(s, for: 4.5)
        XCTAssertEqual(sentAfter(start), [0, 2, 4], "a frame every two seconds from the source: none sent twice in between")
    }

    func testASourceThatStopsOnItsOwnEndsSharingAndSaysWhy() {
        let s = streamer()
        defer { s.stop() }
        s.setSharing(true)
        s.setTalking(true)
        s.tick()
        started.withLock { $0.last?.fail("camera fake stopped: device unplugged") }
        clock.advance(1)
        s.tick()
        XCTAssertEqual(sent.withLock { $0.count }, 1)
        XCTAssertFalse(s.capturing)
        XCTAssertEqual(s.status.problem, "camera fake stopped: device unplugged")
        XCTAssertFalse(s.status.sharing)
        XCTAssertEqual(s.status.headerText, "camera fake unavailable — nothing captured")
    }

    func testAMissingSourceIsSaidWhenSharingStartsAndNothingRuns() {
        missing = "no camera at /dev/video9: plug one in"
        let s = streamer()
        defer { s.stop() }
        s.setSharing(true)
        s.setTalking(true)
        XCTAssertFalse(s.capturing)
        XCTAssertEqual(started.withLock { $0.count }, 0)
        XCTAssertEqual(s.status.problem, "no camera at /dev/video9: plug one in")
    }

    /// Camera frames and attached images share one picture a second, measured on the app's clock: a second
    /// picture within the second is refused (a camera frame waits for the next tick) or waits out the rest of
    /// it (an image), and a failed delivery does not use up the budget.
    func testTheWireLetsOnePictureOutASecond() {
        let clock = ManualTime()
        let delivered = Locked<[Double]>([])
        let connected = Locked(true)
        let wire = VideoWire(time: clock.source, pause: { clock.advance($0) }) { _ in
            guard connected.withLock({ $0 }) else { return false }
            delivered.withLock { $0.append(clock.now) }
            return true
        }
        let start = clock.now
        XCTAssertTrue(wire.send(Data([1]), at: wire.now()))
        clock.advance(0.5)
        XCTAssertFalse(wire.send(Data([2]), at: wire.now()), "half a second later: too soon")
        XCTAssertEqual(wire.wait(at: wire.now()), .milliseconds(500))
        XCTAssertTrue(wire.sendWhenAllowed(Data([3])), "an image waits out the rest of the second")
        XCTAssertEqual(clock.now - start, 1, accuracy: 1e-6)
        clock.advance(1)
        connected.withLock { $0 = false }
        XCTAssertFalse(wire.send(Data([4]), at: wire.now()), "no connection")
        connected.withLock { $0 = true }
        XCTAssertTrue(wire.send(Data([5]), at: wire.now()), "a failed delivery does not use up the second")
        XCTAssertEqual(delivered.withLock { $0 }.map { $0 - start }, [0, 1, 2])
    }

    func testTheSplitterCutsAStreamIntoWholeJPEGs() {
        var s = JPEGStreamSplitter()
        let a: [UInt8] = [0xFF, 0xD8, 1, 2, 0xFF, 0xD9], b: [UInt8] = [0xFF, 0xD8, 3, 0xFF, 0xD9]
        XCTAssertEqual(s.push((a + b.prefix(2))[...]), [Data(a)])
        XCTAssertEqual(s.push(b.dropFirst(2)), [Data(b)])
    }

    func testTheThumbnailStreamIsCutIntoPictures() {
        var s = PPMStreamSplitter()
        let header = Array("P6\n2 1\n255\n".utf8)
        let a = header + [255, 0, 0, 0, 0, 255]
        XCTAssertEqual(s.push((a + header.prefix(3))[...]), [PPMStreamSplitter.Picture(width: 2, height: 1, rgb: [255, 0, 0, 0, 0, 255])])
        XCTAssertEqual(s.push((Array(header.dropFirst(3)) + [1, 2, 3])[...]), [])
        XCTAssertEqual(s.push([4, 5, 6][...]).map(\.rgb), [[1, 2, 3, 4, 5, 6]])
    }
}
