import Foundation
import XCTest
@testable import TUI

/// Every view rendered into the grid at 80×24 and 120×40 and compared with the expected text.
/// `PARLEY_DUMP_FRAMES=DIR swift test --filter FrameSnapshotTests` writes the current frames to DIR for review.
final class FrameSnapshotTests: XCTestCase {
    static func scenarios() -> [(String, UIState, Int, Int)] {
        var out: [(String, UIState, Int, Int)] = []
        let base = Fixtures.state()
        for (r, c) in [(24, 80), (40, 120)] {
            let sz = "\(c)x\(r)"
            out.append(("base_\(sz)", base, r, c))

            var menu = base
            menu.overlay = .voiceMenu(VoiceMenu(voices: Fixtures.voices, current: "Puck"))
            out.append(("voiceMenu_\(sz)", menu, r, c))

            var filtered = VoiceMenu(voices: Fixtures.voices, current: "Puck")
            _ = filtered.handle(.char("a")); _ = filtered.handle(.char("l"))
            menu.overlay = .voiceMenu(filtered)
            out.append(("voiceMenuFiltered_\(sz)", menu, r, c))

            var help = base
            help.overlay = .help
            out.append(("help_\(sz)", help, r, c))

            var confirm = base
            confirm.overlay = .confirm(ConfirmModel(question: "Run shell command?", detail: "rm -rf /tmp/parley-test && echo done"))
            out.append(("confirm_\(sz)", confirm, r, c))

            var message = base
            message.overlay = .message(title: "Theme", text: "themes/bad.toml:7: role \"userText\": fg = \"purplish\" is not a colour name, 0-255 or #rrggbb")
            out.append(("message_\(sz)", message, r, c))

            var busy = base
            busy.toolLog.focused = true; busy.toolLog.selected = 0; busy.toolLog.expanded = true
            busy.input = LineEditor(text: "hello 世界")
            busy.banner = "no audio: PulseAudio is not running — text only"
            out.append(("toolsInputBanner_\(sz)", busy, r, c))

            var cut = base
            cut.transcript.update(4) { $0.text += $0.interim; $0.interim = ""; $0.interrupted = true }
            cut.transcript.append(.error, "connection lost (1006): resuming")
            cut.header.connection = .resuming(inSeconds: 3)
            cut.header.pushToTalk = .kittyHold
            cut.header.goAwaySeconds = nil
            cut.meters.talking = false
            cut.meters.micMuted = true
            cut.toolLog.collapsed = true
            out.append(("interrupted_\(sz)", cut, r, c))

            var failed = base
            failed.header.connection = .failed(reason: "1008 policy violation")
            failed.header.pushToTalk = .openMic
            failed.header.demo = false
            failed.toolLog.calls = []
            failed.status = "voice changed to Kore"
            out.append(("failedOpenMic_\(sz)", failed, r, c))
        }
        var small = base
        small.overlay = .help
        out.append(("tooSmall_39x11", small, 11, 39))
        out.append(("tooSmall_80x11", small, 11, 80))
        out.append(("minimum_40x12", base, 12, 40))
        return out
    }

    func testFramesMatchExpectedText() throws {
        let dump = ProcessInfo.processInfo.environment["PARLEY_DUMP_FRAMES"]
        for (name, state, rows, cols) in Self.scenarios() {
            let (g, _) = Fixtures.render(state, rows: rows, columns: cols)
            if let dir = dump {
                try g.text().write(toFile: dir + "/" + name + ".txt", atomically: true, encoding: .utf8)
                continue
            }
            guard let expected = ExpectedFrames.all[name] else { XCTFail("no expected frame for \(name)"); continue }
            assertScreen(g, expected)
        }
    }
}
