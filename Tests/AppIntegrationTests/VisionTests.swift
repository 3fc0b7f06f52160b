@testable import Conversation
import FFmpeg
import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

@testable import App

/// Pictures end to end: `parley ask --image` against the simulator, and the pieces it rests on.
final class VisionTests: XCTestCase {
    func requireFFmpeg() throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
    }

    func testAskWithAnImageAnswersWithItsColourAndSize() async throws {
        try requireFFmpeg()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-vision-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = dir + "/red.png"
        _ = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", png])
        let sim = LiveSimulator(options: SimulatorOptions())
        try await sim.start()
        let env = isolatedEnvironment(home: dir)
        let r = try shell([Binaries.parley, "ask", "--endpoint", sim.url, "--image", png, "what colour is this?"], env: env)
        let stats = sim.stats()
        try await sim.stop()
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("[image] red.png (") && r.out.contains("64×48"), r.out)
        XCTAssertTrue(r.out.contains("64 by 48 pixels"), r.out)
        XCTAssertTrue(r.out.contains("it is red"), r.out)
        XCTAssertEqual(stats.videoFrames.map { [$0.width, $0.height] }, [[64, 48]])
        XCTAssertEqual(stats.videoFramesTooFast, 0)
        XCTAssertEqual(stats.videoFramesRefused, 0)
    }

    func testLargeImagesAreScaledToTheResolutionAndKeptUnderTheBudget() throws {
        try requireFFmpeg()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-noise-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Noise does not compress: the encoder must step the quality down to fit 200 KB.
        _ = try FFmpegRunner.run(["-f", "lavfi", "-i", "nullsrc=s=2000x1000,geq=random(1)*255:128:128", "-frames:v", "1", path])
        for res in MediaResolution.allCases {
            let image = try AttachedImage.load(path, resolution: res)
            XCTAssertEqual(max(image.encoded.width, image.encoded.height), min(2000, res.longestSide), "\(res)")
            XCTAssertLessThanOrEqual(image.encoded.jpeg.count, ImageEncoder.budget, "\(res)")
            print("vision: \(res.rawValue) \(image.encoded.width)x\(image.encoded.height) \(image.encoded.jpeg.count) bytes q=\(image.encoded.quality)")
        }
    }

    func testAMissingImageFileIsAClearError() {
        XCTAssertThrowsError(try AttachedImage.load("/nonexistent/cat.png", resolution: .low)) { error in
            XCTAssertEqual("\(error)", "/nonexistent/cat.png: no such image file")
        }
    }

    func testPacerSendsAtMostOneFrameASecondAndOnlyWhileTalking() {
        var pacer = FramePacer(timing: .talking, sharing: true)
        XCTAssertFalse(pacer.due(at: .zero), "silent: nothing")
        pacer.talking = true
        XCTAssertTrue(pacer.due(at: .zero))
        pacer.sent(bytes: 1000, at: .zero)
        XCTAssertFalse(pacer.due(at: .milliseconds(999)))
        XCTAssertTrue(pacer.due(at: .seconds(1)))
        pacer.sharing = false
        XCTAssertFalse(pacer.due(at: .seconds(5)), "sharing off: nothing")
        XCTAssertFalse(pacer.wantsFrames)
        var always = FramePacer(timing: .always, sharing: true)
        XCTAssertTrue(always.due(at: .zero))
        always.sent(bytes: 3000, at: .zero)
        always.sent(bytes: 1000, at: .seconds(1))
        XCTAssertEqual(always.bytesPerFrame, 2000)
    }

    func testVisionSettingsGoIntoTheSetup() throws {
        var c = Config()
        try c.apply(toml: "[vision]\nmedia_resolution = \"low\"\nturn_coverage = \"activity\"\n", file: "t.toml")
        let setup = c.setup(tools: [], manualActivity: false)
        XCTAssertEqual(setup.generationConfig?.mediaResolution, "MEDIA_RESOLUTION_LOW")
        XCTAssertEqual(setup.realtimeInputConfig?.turnCoverage, "TURN_INCLUDES_ONLY_ACTIVITY")
        XCTAssertThrowsError(try c.apply(toml: "[vision]\nmedia_resolution = \"huge\"\n", file: "t.toml"))
    }

    func testJPEGHeaderReadsTheSizeAndRejectsOtherBytes() throws {
        try requireFFmpeg()
        let jpeg = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=blue:s=34x18", "-frames:v", "1", "-c:v", "mjpeg", "-f", "image2pipe", "-"])
        XCTAssertEqual(JPEGHeader(jpeg).map { [$0.width, $0.height] }, [34, 18])
        XCTAssertTrue(JPEGHeader.isComplete(jpeg))
        XCTAssertNil(JPEGHeader(Data([0x89, 0x50, 0x4E, 0x47])))
        XCTAssertEqual(try FrameColour.average(ofJPEG: jpeg).name, "blue")
        let thumb = try XCTUnwrap(ThumbnailDecoder.decode(jpeg, caption: "blue"))
        XCTAssertEqual([thumb.width, thumb.height], [32, 17])
        XCTAssertGreaterThan(thumb.rgb[2], 200, "blue channel")
    }
}
