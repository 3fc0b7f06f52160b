@testable import Conversation
import Foundation
import TUI
import XCTest

@testable import App

/// Issue 25: `R` starts and pauses the recording; the header's REC mark follows what the recorder says.
final class RecordingReducerTests: XCTestCase {
    var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)

    @discardableResult
    func on(_ e: AppEvent) -> [Effect] { Reducer.reduce(&s, e, now: 10) }

    var r: KeyEvent { KeyEvent(.character("R")) }

    func testRStartsTheRecordingAndTheHeaderShowsRECOnlyOnceItHasStarted() {
        XCTAssertEqual(on(.input(.key(r))), [.recording(start: true)])
        XCTAssertFalse(s.ui.header.recording, "no mark before the recorder says it records")
        on(.recording(.started(path: "/d/session-1.ogg")))
        XCTAssertTrue(s.recording)
        XCTAssertTrue(s.ui.header.recording)
        XCTAssertEqual(s.ui.status, "recording to /d/session-1.ogg (R pauses)")
        XCTAssertEqual(on(.input(.key(r))), [.recording(start: false)], "R again pauses")
        on(.recording(.stopped(path: "/d/session-1.ogg")))
        XCTAssertFalse(s.ui.header.recording)
        XCTAssertEqual(s.ui.status, "recording paused (R goes on in the same file)")
    }

    func testAFailureTurnsTheMarkOffAndIsSaidOnceInTheStatusAndTheTranscript() {
        on(.recording(.started(path: "/d/s.wav")))
        let failure = RecordingFailure.io(ENOSPC, path: "/d/s.wav", doing: "write")
        let fx = on(.recording(.failed(failure)))
        XCTAssertFalse(s.ui.header.recording)
        XCTAssertEqual(s.ui.status, failure.message)
        XCTAssertTrue(s.ui.transcript.entries.last?.text.contains("the disk is full") == true)
        guard case .record(let rec) = fx.first else { return XCTFail("the failure is kept in the transcript: \(fx)") }
        XCTAssertEqual(rec.kind, .error)
        XCTAssertEqual(fx.count, 1)
    }

    func testTheKeyIsInTheHelpAndRemappable() {
        XCTAssertEqual(KeyMap.default.keys(for: .toggleRecording), [KeyChord(.character("R"))])
        XCTAssertTrue(Command.toggleRecording.summary.contains("record"))
        guard case .success(let map) = KeyMap.default.overriding(["toggleRecording": ["F5"]]) else { return XCTFail("remaps") }
        XCTAssertEqual(map.command(for: KeyEvent(.function(5))), .toggleRecording)
    }
}
