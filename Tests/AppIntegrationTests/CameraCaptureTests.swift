import FFmpeg
import Foundation
import ParleyLock
import Live
import ParleyTesting
import Synchronization
import XCTest

@testable import App

/// The camera path with the real source: ffmpeg's `testsrc` standing in for a V4L2 device, paced on a clock the
/// test moves; ffmpeg runs only while frames are wanted. The pacing rules themselves are unit tests
/// (`CameraPacingTests`, a fake source on the same clock).
final class CameraCaptureTests: XCTestCase {
    func testTheFFmpegSourceStreamsOnlyWhileTalking() throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let clock = ManualTime()
        let sent = Locked<[Double]>([])
        let wire = VideoWire(time: clock.source) { _ in sent.withLock { $0.append(clock.now) }; return true }
        let thumbnails = Locked(0)
        let streamer = FrameStreamer(input: .synthetic(), resolution: .low, timing: .talking, wire: wire) { _, thumb in
            if thumb != nil { thumbnails.withLock { $0 += 1 } }
        }
        defer { streamer.stop() }
        func count() -> Int { sent.withLock { $0.count } }

        streamer.setSharing(true)
        XCTAssertFalse(streamer.capturing, "ffmpeg does not run while the user is silent")
        clock.advance(2)
        streamer.tick()
        XCTAssertEqual(count(), 0, "no frames while silent")

        streamer.setTalking(true)
        XCTAssertTrue(streamer.capturing)
        eventually("the first frame while talking") { streamer.tick(); return count() == 1 }
        streamer.setTalking(false)
        XCTAssertFalse(streamer.capturing, "ffmpeg stops when the user stops talking")
        clock.advance(3)
        streamer.tick()
        XCTAssertEqual(count(), 1, "none after talking stopped")
        streamer.setSharing(false)
        XCTAssertEqual(thumbnails.withLock { $0 }, 1, "the frame sent comes with its side-pane picture")
        XCTAssertEqual(streamer.status.framesSent, 1)
        XCTAssertEqual(streamer.status.headerText, "test source off — nothing captured")
    }

    /// `PARLEY_BENCH=1`: the CPU of streaming a 720p, 30 fps source at one frame a second (ffmpeg's decoding,
    /// scaling, JPEG and thumbnail), and the bytes a frame costs at each media resolution.
    func testBenchmarkCameraCPUAndBytesPerFrame() async throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1") }
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let seconds = Double(ProcessInfo.processInfo.environment["PARLEY_BENCH_SECONDS"] ?? "30") ?? 30
        let source = CaptureInput.synthetic("testsrc=size=1280x720:rate=30")
        for resolution in MediaResolution.allCases {
            let frames = Locked<[Int]>([])
            let wire = VideoWire(time: .monotonic) { jpeg in frames.withLock { $0.append(jpeg.count) }; return true }
            let streamer = FrameStreamer(input: source, resolution: resolution, timing: .always, wire: wire)
            func cpu() -> (child: Double, own: Double) {
                var c = rusage(), o = rusage()
                getrusage(RUSAGE_CHILDREN.rawValue, &c)
                getrusage(RUSAGE_SELF.rawValue, &o)
                func s(_ r: rusage) -> Double { Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6 }
                return (s(c), s(o))
            }
            let before = cpu()
            let started = ContinuousClock.now
            streamer.setSharing(true)
            try await Task.sleep(for: .seconds(resolution == .medium ? seconds : 10))
            streamer.setSharing(false)  // ffmpeg is killed and reaped: its CPU is in RUSAGE_CHILDREN now
            let wall = ContinuousClock.now - started
            let after = cpu()
            let w = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
            let sizes = frames.withLock { $0 }
            let mean = sizes.isEmpty ? 0 : sizes.reduce(0, +) / sizes.count
            print(String(format: "vision bench: %@ %d frames in %.1f s, %d bytes/frame (%.1f KB); ffmpeg %.2f%% of a core, parley's own process %.2f%%",
                         resolution.rawValue, sizes.count, w, mean, Double(mean) / 1024, 100 * (after.child - before.child) / w, 100 * (after.own - before.own) / w))
            XCTAssertLessThanOrEqual(Double(sizes.count), w + 1, "at most one a second")
        }
    }

    func testMissingCameraAndScreenAreNamed() {
        XCTAssertEqual(CaptureInput.check(.camera("/dev/video-none")),
                       "no camera at /dev/video-none: plug one in or name it with --camera DEVICE (see v4l2-ctl --list-devices)")
        XCTAssertEqual(CaptureInput.screen(environment: [:]).failureDescription,
                       "no screen to share: neither DISPLAY (X11) nor WAYLAND_DISPLAY is set")
        let wayland = CaptureInput.screen(environment: ["WAYLAND_DISPLAY": "wayland-0"], hasPipewireGrab: { false })
        XCTAssertTrue(wayland.failureDescription?.hasPrefix("screen sharing on Wayland needs ffmpeg's pipewiregrab source") == true)
        XCTAssertEqual(try CaptureInput.screen(environment: ["WAYLAND_DISPLAY": "wayland-0"], hasPipewireGrab: { true }).get(), .waylandScreen)
        XCTAssertEqual(try CaptureInput.screen(environment: ["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":1"]).get().label, "screen :1")
    }
}

extension Result where Failure == VisionUnavailable {
    var failureDescription: String? { if case .failure(let e) = self { e.description } else { nil } }
}
