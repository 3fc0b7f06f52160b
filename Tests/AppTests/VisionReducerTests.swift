@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// Pictures in the conversation as the reducer decides them: `@path` lines, the Ctrl-O prompt, images waiting
/// for the next turn, camera sharing following push-to-talk and open-mic speech.
final class VisionReducerTests: XCTestCase {
    var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)
    var now = 0.0

    @discardableResult
    func on(_ e: AppEvent) -> [Effect] { Reducer.reduce(&s, e, now: now) }

    @discardableResult
    func key(_ k: KeyEvent) -> [Effect] { on(.input(.key(k))) }

    func type(_ text: String) { for c in text { key(KeyEvent(.character(c))) } }

    func image(_ name: String = "red.png") -> AttachedImage {
        AttachedImage(path: "/tmp/\(name)", fileBytes: 170, encoded: EncodedImage(jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]), width: 64, height: 48, quality: 0.7))
    }

    func visionCommands(_ fx: [Effect]) -> [VisionCommand] { fx.compactMap { if case .vision(let c) = $0 { c } else { nil } } }

    var lines: [String] { s.ui.transcript.entries.map { $0.text } }

    func testATypedAtPathLineLoadsThenSendsTheImageBeforeTheQuestion() {
        on(.live(.setupComplete(resumed: false)))
        key(KeyEvent(.tab))
        type("@shots/red.png what colour is this?")
        let fx = key(KeyEvent(.enter))
        XCTAssertEqual(visionCommands(fx), [.load(.typed("@shots/red.png what colour is this?"))])
        XCTAssertFalse(fx.contains(.live(.sendText("@shots/red.png what colour is this?"))), "nothing goes out before the image is loaded")
        XCTAssertEqual(visionCommands(on(.vision(.loaded([image()], question: "what colour is this?")))),
                       [.send([image()], question: "what colour is this?")])
        XCTAssertEqual(s.status?.isSendingImages, true)
        let thumb = Thumbnail(width: 1, height: 1, rgb: [255, 0, 0], caption: "red.png 64×48")
        let sent = on(.vision(.sent([image()], thumbnail: thumb, question: "what colour is this?", failure: nil)))
        XCTAssertEqual(Array(lines.suffix(2)), ["[image] red.png (170 B, 64×48, 4 B JPEG sent)", "what colour is this?"])
        XCTAssertTrue(sent.contains(.live(.sendText("what colour is this?"))))
        XCTAssertTrue(sent.contains(.record(.line(speaker: .user, text: "[image] red.png (170 B, 64×48, 4 B JPEG sent)", interrupted: false))))
        XCTAssertEqual(s.ui.thumbnail, thumb)
        XCTAssertNil(s.status, "the sending note goes once the images went out")
    }

    func testAFailedAttachmentIsOneErrorLineAndNothingIsSent() {
        on(.live(.setupComplete(resumed: false)))
        let fx = on(.vision(.failed("/tmp/cat.png: no such image file — nothing was sent")))
        XCTAssertEqual(s.ui.transcript.entries.last?.speaker, .error)
        XCTAssertEqual(lines.last, "/tmp/cat.png: no such image file — nothing was sent")
        XCTAssertFalse(fx.contains { if case .live = $0 { true } else { false } })
    }

    func testTheCtrlOPromptAttachesAnImageForTheNextSpokenTurn() {
        on(.live(.setupComplete(resumed: false)))
        key(.ctrl("o"))
        guard case .pathPrompt = s.ui.overlay else { return XCTFail("no prompt") }
        type("/tmp/red.png")
        XCTAssertEqual(visionCommands(key(KeyEvent(.tab))), [.complete("@/tmp/red.png")])
        XCTAssertEqual(visionCommands(key(KeyEvent(.enter))), [.load(.prompt("/tmp/red.png"))])
        XCTAssertNil(s.ui.overlay)
        on(.vision(.loaded([image()], question: nil)))
        XCTAssertEqual(s.vision.pending, [image()])
        XCTAssertEqual(s.ui.header.vision, "attached: red.png (next turn)")
        // Push-to-talk: the image goes out inside the activity, after activityStart.
        let fx = key(KeyEvent(.character(" ")))
        let start = fx.firstIndex(of: .live(.activityStart)), send = fx.firstIndex(of: .vision(.send([image()], question: nil)))
        XCTAssertNotNil(start)
        XCTAssertNotNil(send)
        XCTAssertLessThan(start ?? 0, send ?? 0)
        XCTAssertEqual(s.vision.pending, [])
    }

    func testAPendingImageGoesBeforeTheNextTypedTurn() {
        on(.live(.setupComplete(resumed: false)))
        on(.vision(.loaded([image()], question: nil)))
        key(KeyEvent(.tab))
        type("and this?")
        XCTAssertEqual(visionCommands(key(KeyEvent(.enter))), [.send([image()], question: "and this?")])
    }

    func testEscCancelsThePrompt() {
        key(.ctrl("o"))
        type("x")
        XCTAssertEqual(key(KeyEvent(.escape)), [])
        XCTAssertNil(s.ui.overlay)
    }

    func testTabCompletionReplacesTheAtWord() {
        key(KeyEvent(.tab))
        type("look @/tmp/re")
        XCTAssertEqual(visionCommands(key(KeyEvent(.tab))), [.complete("@/tmp/re")])
        on(.vision(.completed(word: "@/tmp/re", completion: "@/tmp/red.png")))
        XCTAssertEqual(s.ui.input?.text, "look @/tmp/red.png")
    }

    func testCameraSharingFollowsPushToTalkAndTheCKey() {
        s.vision = VisionState(source: "camera /dev/video0", sharing: true)
        XCTAssertEqual(visionCommands(on(.tick)), [], "nothing before the first connection")
        XCTAssertEqual(visionCommands(on(.live(.setupComplete(resumed: false)))), [.share(true)])
        XCTAssertEqual(s.ui.header.vision, "camera /dev/video0 · 0 frames · waits for you to talk")
        now = 1
        XCTAssertEqual(visionCommands(key(KeyEvent(.character(" ")))), [.talking(true)])
        on(.vision(.status(VisionStatus(source: "camera /dev/video0", sharing: true, capturing: true, framesSent: 3, bytesPerFrame: 6144), thumbnail: nil)))
        XCTAssertEqual(s.ui.header.vision, "camera /dev/video0 · 3 frames · 6.0 KB/frame")
        XCTAssertTrue(s.ui.header.visionLive)
        now = 4
        XCTAssertEqual(visionCommands(key(KeyEvent(.character(" ")))), [.talking(false)])
        XCTAssertEqual(visionCommands(key(KeyEvent(.character("c")))), [.share(false)])
        XCTAssertEqual(s.ui.header.vision, "camera /dev/video0 off — nothing captured")
        XCTAssertFalse(s.ui.header.visionLive)
        XCTAssertEqual(visionCommands(key(KeyEvent(.character("c")))), [.share(true)])
    }

    func testOpenMicTalksWhileSpeechIsHeardUntilTheModelAnswers() {
        s = AppState(config: { var c = Config(); c.mode = .open; return c }(), demo: false, audioAvailable: true, kitty: false)
        s.vision = VisionState(source: "screen :0", sharing: true)
        on(.live(.setupComplete(resumed: false)))
        XCTAssertEqual(visionCommands(on(.live(.inputTranscription(" what is", finished: false)))), [.talking(true)])
        XCTAssertEqual(visionCommands(on(.live(.outputTranscription(" It is", finished: false)))), [.talking(false)])
    }

    func testAMissingCameraStopsSharingWithOneLine() {
        s.vision = VisionState(source: "camera /dev/video9", sharing: true)
        on(.live(.setupComplete(resumed: false)))
        let problem = VisionStatus(source: "camera /dev/video9", sharing: false, framesSent: 0, bytesPerFrame: 0, problem: "no camera at /dev/video9")
        on(.vision(.status(problem, thumbnail: nil)))
        on(.vision(.status(problem, thumbnail: nil)))
        XCTAssertEqual(s.ui.transcript.entries.filter { $0.speaker == .error }.count, 1)
        XCTAssertFalse(s.vision.sharing)
        XCTAssertEqual(s.ui.header.vision, "camera /dev/video9 unavailable — nothing captured")
        XCTAssertTrue(lines.contains("camera /dev/video9: no camera at /dev/video9 — going on without it"))
        XCTAssertEqual(visionCommands(key(KeyEvent(.character("c")))), [.share(true)], "c tries again (the camera may be plugged in now)")
        s.vision = VisionState(source: "screen", available: false, sharing: false)
        XCTAssertEqual(visionCommands(key(KeyEvent(.character("c")))), [], "a source that cannot exist here is not tried")
        XCTAssertEqual(s.ui.status, "screen is not available here (see above)")
    }

    func testCameraFlagStandsWithoutADevice() throws {
        XCTAssertEqual(VisionOptions.normalized(["--camera", "--demo"]), ["--camera=default", "--demo"])
        XCTAssertEqual(VisionOptions.normalized(["--demo", "--camera"]), ["--demo", "--camera=default"])
        XCTAssertEqual(VisionOptions.normalized(["--camera", "/dev/video2"]), ["--camera", "/dev/video2"])
        var settings = VisionSettings()
        try VisionOptions.parse(["--camera=default"]).apply(to: &settings)
        XCTAssertEqual(settings.source, .camera)
        XCTAssertEqual(settings.cameraDevice, "/dev/video0")
        try VisionOptions.parse(["--camera", "test", "--frames", "always", "--turn-coverage", "all"]).apply(to: &settings)
        XCTAssertEqual(try settings.captureInput(environment: [:])?.get(), .synthetic())
        XCTAssertEqual(settings.frames, .always)
        XCTAssertEqual(settings.turnCoverage, .all)
        XCTAssertThrowsError(try VisionOptions.parse(["--camera", "x", "--screen"]))
    }
}
