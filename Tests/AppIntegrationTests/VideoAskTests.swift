import FFmpeg
import Foundation
import LiveSimulator
import ParleyTesting
import XCTest

/// `parley ask --video` against the simulator: a clip made with ffmpeg (a colour and a tone) streams at one
/// frame a second with its sound as speech, and the answer names the frames, their size and their colour.
final class VideoAskTests: XCTestCase {
    func testAClipIsStreamedInRealTimeAndAnsweredAbout() async throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-video-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/clip.mkv"
        _ = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=red:s=320x240:d=3:r=25", "-f", "lavfi", "-i", "sine=frequency=300:duration=3",
                                  "-shortest", "-c:v", "mjpeg", "-c:a", "pcm_s16le", clip])
        // The clip streams in real time (what is tested); the replies need not play in real time as well.
        let sim = LiveSimulator(options: .quick)
        try await sim.start()
        let env = isolatedEnvironment(home: dir)
        let started = Date()
        let r = try shell([Binaries.parley, "ask", "--endpoint", sim.url, "--video", clip, "what happens here?"], env: env, timeout: 90)
        let took = Date().timeIntervalSince(started)
        let stats = sim.stats()
        try await sim.stop()
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("[video] clip.mkv (3 frames at 1 fps, 320×240, 3.0 s of sound)"), r.out)
        XCTAssertTrue(r.out.contains("I was shown 3 frames, the last one 320 by 240 pixels. On average it is red"), r.out)
        XCTAssertTrue(r.out.contains("you: what happens here?"), "the question follows the clip: \(r.out)")
        XCTAssertEqual(stats.videoFrames.count, 3)
        XCTAssertTrue(stats.videoFrames.allSatisfy { $0.width == 320 && $0.height == 240 && $0.duringUserActivity }, "frames inside the spoken turn")
        XCTAssertEqual(stats.videoFramesTooFast, 0, "never faster than one a second")
        XCTAssertEqual(stats.videoFramesRefused, 0)
        for (a, b) in zip(stats.videoFrames, stats.videoFrames.dropFirst()) { XCTAssertGreaterThanOrEqual(b.at - a.at, .milliseconds(950)) }
        XCTAssertEqual(stats.audioBytesReceived, 3 * 32_000, "the whole track, 16 kHz mono s16le")
        XCTAssertGreaterThan(took, 2.5, "real time: a 3 s clip takes at least about 3 s")
    }
}
