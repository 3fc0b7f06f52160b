import Foundation
import Live
import LiveSimulator
import XCTest

@testable import App

/// The screen path through x11grab, with Xvfb as the X server (started on a free display, killed by pid).
final class ScreenCaptureTests: XCTestCase {
    func testScreenCaptureGivesFramesOfTheDisplay() throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else { throw XCTSkip("Xvfb is not installed (apt-get install xvfb)") }
        let number = (90...199).first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)") && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") } ?? 199
        let xvfb = Process()
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = [":\(number)", "-screen", "0", "800x600x24", "-nolisten", "tcp"]
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        defer {
            kill(xvfb.processIdentifier, SIGKILL)
            xvfb.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"), Date() < deadline { usleep(20_000) }
        guard case .success(let input) = CaptureInput.screen(environment: ["DISPLAY": ":\(number)"]) else { return XCTFail("no screen input") }
        XCTAssertEqual(input.label, "screen :\(number)")
        let capture = try FrameCapture(input, resolution: .medium)
        defer { capture.stop() }
        var frame: Data?
        while frame == nil, Date() < deadline.addingTimeInterval(10) {
            frame = capture.latest?.jpeg
            usleep(50_000)
        }
        let header = try XCTUnwrap(frame.flatMap { JPEGHeader($0) }.map { [$0.width, $0.height] })
        XCTAssertEqual(header, [768, 576], "800x600 fitted into 768")
    }
}

