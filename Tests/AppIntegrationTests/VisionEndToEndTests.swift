import FFmpeg
import Foundation
import ParleyTesting
import XCTest

/// Pictures in the full-screen app, driven in tmux against the built-in simulator: an `@path` line answered with
/// the image's colour and size and drawn in the side pane in 24-bit colour, and the camera (ffmpeg's test
/// pattern) turned off and on with `c`.
final class VisionEndToEndTests: XCTestCase {
    var home: String!

    override func setUpWithError() throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-vision-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/shots", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }

    /// `swift test` runs tests with NO_COLOR set; the pane must not inherit it, or there would be no colours to see.
    func env() -> [String: String] {
        isolatedEnvironment(home: home, ["TERM": "tmux-256color", "COLORTERM": "truecolor", "NO_COLOR": "", "PULSE_SERVER": "unix:/nonexistent/parley/native"])
    }

    func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    func testAnAtPathLineIsAnsweredWithTheColourAndSizeAndDrawnInTheSidePane() throws {
        let png = home + "/shots/red.png"
        _ = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", png])
        let tmux = try Tmux(width: 130, height: 36, env: env())
        defer { tmux.close() }
        try tmux.type("\(quoted(Binaries.parley)) --demo; echo EXITED:$?", enter: true)
        try tmux.wait(for: "● live")
        try tmux.keys("Tab")
        try tmux.type("@\(home!)/shots/re")
        try tmux.keys("Tab")
        try tmux.wait(for: "@\(home!)/shots/red.png", "Tab completes the path")
        try tmux.type(" what colour is this?", enter: true)
        let screen = try tmux.wait(for: "it is red", "the simulator's answer")
        XCTAssertTrue(screen.contains("[image] red.png ("), screen)
        XCTAssertTrue(screen.contains("64×48"), screen)
        XCTAssertTrue(screen.contains("64 by 48 pixels"), screen)
        XCTAssertTrue(screen.contains("▀▀▀▀"), "the thumbnail in the side pane")
        XCTAssertTrue(screen.contains("red.png 64×48"), "its caption")
        let coloured = try tmux.tmux("capture-pane", "-p", "-e", "-t", tmux.session)
        XCTAssertNotNil(coloured.range(of: #"48;2;2[4-5][0-9];[0-9];[0-9]m"#, options: .regularExpression), "24-bit red pixels")

        // The Ctrl-O prompt: a missing file is one clear line, and the conversation goes on.
        try tmux.keys("Escape")
        try tmux.keys("C-o")
        try tmux.wait(for: "Attach an image")
        try tmux.type("\(home!)/shots/nothere.png", enter: true)
        try tmux.wait(for: "no such image file")
        try tmux.keys("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testTheCameraStreamsAndCTurnsItOffAndOn() throws {
        let tmux = try Tmux(width: 130, height: 36, env: env())
        defer { tmux.close() }
        try tmux.type("\(quoted(Binaries.parley)) --demo --camera test --frames always; echo EXITED:$?", enter: true)
        let on = try tmux.wait(for: "two frames counted in the header") { Self.framesSent($0) ?? 0 >= 2 }
        XCTAssertTrue(on.contains("KB/frame"), on)
        XCTAssertTrue(on.contains("▀▀▀▀"), "the last frame in the side pane")
        try tmux.keys("c")
        try tmux.wait(for: "test source off — nothing captured")
        let frames = Self.framesSent(on) ?? 0
        try tmux.keys("c")
        try tmux.wait(for: "frames that keep coming after c") { Self.framesSent($0) ?? 0 > frames }
        try tmux.keys("q")
        try tmux.wait(for: "EXITED:0")
    }

    func testPushToTalkSendsCameraFramesOnlyWhileHeld() throws {
        let audio = try TestAudio.fromEnvironment()
        try audio.ensureSink("parley_mic")
        try audio.ensureSink("parley_null")
        var e = env()
        e["PULSE_SERVER"] = audio.server
        let tmux = try Tmux(width: 130, height: 36, env: e)
        defer { tmux.close() }
        try tmux.type("\(quoted(Binaries.parley)) --demo --camera test --mic parley_mic.monitor --speaker parley_null; echo EXITED:$?", enter: true)
        // That silence sends nothing, and that nothing follows once the user stops, is timing: CameraPacingTests
        // proves both on a clock it moves by hand. Here, the wiring: the talk key starts and stops the frames.
        try tmux.wait(for: "test source · 0 frames · waits for you to talk")
        try tmux.type(" ")  // tmux has no kitty protocol: a tap starts talking…
        let talking = try tmux.wait(for: "frames while talking") { Self.framesSent($0) ?? 0 >= 2 }
        XCTAssertFalse(talking.contains("waits for you to talk"), talking)
        try tmux.type(" ")  // …and a tap stops it
        try tmux.wait(for: "waits for you to talk")
        try tmux.keys("q")
        try tmux.wait(for: "EXITED:0")
    }

    /// The frame count in the header, e.g. 3 in `test source · 3 frames · 13.1 KB/frame`.
    static func framesSent(_ screen: String) -> Int? {
        guard let r = screen.range(of: #"test source · [0-9]+ frame"#, options: .regularExpression) else { return nil }
        return Int(screen[r].split(separator: " ")[3])
    }
}
