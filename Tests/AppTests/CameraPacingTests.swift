import Foundation
import Synchronization
import Live
import LiveSimulator
import XCTest

@testable import App

/// The camera path end to end, with ffmpeg's `testsrc` standing in for a V4L2 device: frames go out at most
/// once a second while the user talks, and none while silent or with sharing off (the simulator's stats); ffmpeg
/// runs only while frames are wanted.
final class CameraPacingTests: XCTestCase {
    func testCameraFramesOnlyWhileTalkingAndAtMostOneASecond() async throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let sim = LiveSimulator(options: SimulatorOptions())
        try await sim.start()
        var config = Config()
        config.endpoint = sim.url
        let session = LiveSession(configuration: LiveConfiguration(
            endpoint: sim.url, credential: try config.credential(environment: [:]),
            setup: config.setup(tools: [], manualActivity: true)))
        let ready = AsyncStream<Void>.makeStream()
        let events = Task {
            for await e in session.events { if case .setupComplete = e { ready.continuation.yield() } }
        }
        session.start()
        for await _ in ready.stream { break }

        let thumbnails = Mutex(0)
        let streamer = FrameStreamer(input: .synthetic(), resolution: .low, timing: .talking, wire: VideoWire(session: session)) { _, thumb in
            if thumb != nil { thumbnails.withLock { $0 += 1 } }
        }
        var before = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let started = ContinuousClock.now
        streamer.setSharing(true)
        try await Task.sleep(for: .seconds(2))  // sharing, silent: nothing goes out
        let silent = sim.stats().videoFrames.count
        let capturedWhileSilent = streamer.capturing
        session.activityStart()
        streamer.setTalking(true)
        let capturedWhileTalking = streamer.capturing
        try await Task.sleep(for: .milliseconds(3500))  // talking: a frame a second
        streamer.setTalking(false)
        let capturedAfterTalking = streamer.capturing
        session.activityEnd()
        let talked = sim.stats().videoFrames.count
        try await Task.sleep(for: .seconds(2))  // silent again
        streamer.setSharing(false)
        let capturedFor = ContinuousClock.now - started
        try await Task.sleep(for: .seconds(1))  // sharing off
        let status = streamer.status
        var after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        let stats = sim.stats()
        session.close()
        events.cancel()
        try await sim.stop()

        XCTAssertEqual(silent, 0, "no frames while silent")
        XCTAssertFalse(capturedWhileSilent, "ffmpeg does not run while the user is silent")
        XCTAssertTrue(capturedWhileTalking)
        XCTAssertFalse(capturedAfterTalking, "ffmpeg stops when the user stops talking")
        XCTAssertEqual(thumbnails.withLock { $0 }, talked, "each frame sent comes with its side-pane picture")
        XCTAssertGreaterThanOrEqual(talked, 2, "frames while talking")
        XCTAssertLessThanOrEqual(talked, 4, "at most one a second in 3.5 s")
        XCTAssertEqual(stats.videoFrames.count, talked, "none after talking stopped or sharing went off")
        XCTAssertTrue(stats.videoFrames.allSatisfy(\.duringUserActivity))
        for (a, b) in zip(stats.videoFrames, stats.videoFrames.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b.at - a.at, .milliseconds(950))
        }
        XCTAssertEqual(stats.videoFramesTooFast, 0)
        XCTAssertEqual(stats.videoFramesRefused, 0)
        XCTAssertEqual(status.framesSent, talked)
        XCTAssertEqual(status.headerText, "test source off — nothing captured")
        let cpu = Double(after.ru_utime.tv_sec - before.ru_utime.tv_sec + after.ru_stime.tv_sec - before.ru_stime.tv_sec)
            + Double(after.ru_utime.tv_usec - before.ru_utime.tv_usec + after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6
        let wall = Double(capturedFor.components.seconds) + Double(capturedFor.components.attoseconds) / 1e18
        print("vision: capture ffmpeg CPU \(String(format: "%.3f", cpu)) s over \(String(format: "%.1f", wall)) s (\(String(format: "%.1f", 100 * cpu / wall))% of a core); \(status.bytesPerFrame) bytes/frame at low")
    }

    /// `PARLEY_BENCH=1`: the CPU of streaming a 720p, 30 fps source at one frame a second (ffmpeg's decoding,
    /// scaling, JPEG and thumbnail), and the bytes a frame costs at each media resolution.
    func testBenchmarkCameraCPUAndBytesPerFrame() async throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1") }
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let seconds = Double(ProcessInfo.processInfo.environment["PARLEY_BENCH_SECONDS"] ?? "30") ?? 30
        let source = CaptureInput.synthetic("testsrc=size=1280x720:rate=30")
        for resolution in MediaResolution.allCases {
            let frames = Mutex<[Int]>([])
            let wire = VideoWire { jpeg in frames.withLock { $0.append(jpeg.count) }; return true }
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

    func testTheSplitterCutsAStreamIntoWholeJPEGs() {
        var s = JPEGStreamSplitter()
        let a: [UInt8] = [0xFF, 0xD8, 1, 2, 0xFF, 0xD9], b: [UInt8] = [0xFF, 0xD8, 3, 0xFF, 0xD9]
        XCTAssertEqual(s.push((a + b.prefix(2))[...]), [Data(a)])
        XCTAssertEqual(s.push(b.dropFirst(2)), [Data(b)])
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

    func testTheThumbnailStreamIsCutIntoPictures() {
        var s = PPMStreamSplitter()
        let header = Array("P6\n2 1\n255\n".utf8)
        let a = header + [255, 0, 0, 0, 0, 255]
        XCTAssertEqual(s.push((a + header.prefix(3))[...]), [PPMStreamSplitter.Picture(width: 2, height: 1, rgb: [255, 0, 0, 0, 0, 255])])
        XCTAssertEqual(s.push((Array(header.dropFirst(3)) + [1, 2, 3])[...]), [])
        XCTAssertEqual(s.push([4, 5, 6][...]).map(\.rgb), [[1, 2, 3, 4, 5, 6]])
    }
}

extension Result where Failure == VisionUnavailable {
    var failureDescription: String? { if case .failure(let e) = self { e.description } else { nil } }
}
