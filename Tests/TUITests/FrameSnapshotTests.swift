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
            help.overlay = .help(top: 0)
            out.append(("help_\(sz)", help, r, c))

            var latency = base
            latency.overlay = .latencyStats(Fixtures.latencyStats)
            out.append(("latencyStats_\(sz)", latency, r, c))
            var vision = base
            vision.header.vision = "camera /dev/video0 · 12 frames · 13.5 KB/frame"
            vision.header.visionLive = true
            vision.transcript.append(.user, "[image] red.png (170 B, 64×48, 260 B JPEG sent)")
            vision.thumbnail = Thumbnail(width: 8, height: 6, rgb: Array(repeating: 200, count: 8 * 6 * 3), caption: "red.png 64×48")
            out.append(("vision_\(sz)", vision, r, c))

            var prompt = base
            prompt.overlay = .pathPrompt(LineEditor(text: "~/shots/diagram.png"))
            out.append(("pathPrompt_\(sz)", prompt, r, c))

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

            var searching = base
            var search = SearchState(editor: LineEditor(text: "tokyo"))
            search.find("tokyo", in: base.transcript)
            searching.search = search
            searching.status = search.status
            out.append(("searching_\(sz)", searching, r, c))

            var kept = searching
            kept.search?.editor = nil
            kept.search?.step(-1, in: base.transcript)
            kept.status = kept.search?.status
            out.append(("searchKept_\(sz)", kept, r, c))

            var failed = base
            failed.header.connection = .failed(reason: "1008 policy violation")
            failed.header.pushToTalk = .openMic
            failed.header.demo = false
            failed.toolLog.calls = []
            failed.status = "voice changed to Kore"
            out.append(("failedOpenMic_\(sz)", failed, r, c))

            var recording = failed
            recording.header.recording = true
            recording.header.connection = .live
            recording.status = "recording to ~/.local/share/parley/session-2026-11-24-0512.ogg (R pauses)"
            out.append(("recording_\(sz)", recording, r, c))
            var recordingDemo = base
            recordingDemo.header.recording = true
            out.append(("recordingDemo_\(sz)", recordingDemo, r, c))
        }
        var small = base
        small.overlay = .help(top: 0)
        out.append(("tooSmall_39x11", small, 11, 39))
        out.append(("tooSmall_80x11", small, 11, 80))
        out.append(("minimum_40x12", base, 12, 40))
        var stats = base
        stats.overlay = .latencyStats(Fixtures.latencyStats)
        out.append(("latencyStats_40x12", stats, 12, 40))
        out.append(("latencyStats_60x16", stats, 16, 60))
        out.append(("latencyStats_10x5", stats, 5, 10))
        return out
    }

    /// Renders one scenario and compares it with its expected frame (or writes it out for review).
    func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let (_, state, rows, cols) = Self.scenarios().first(where: { $0.0 == name }) else {
            return XCTFail("no scenario \(name)", file: file, line: line)
        }
        let (g, _) = Fixtures.render(state, rows: rows, columns: cols)
        if let dir = ProcessInfo.processInfo.environment["PARLEY_DUMP_FRAMES"] {
            try g.text().write(toFile: dir + "/" + name + ".txt", atomically: true, encoding: .utf8)
            return
        }
        guard let expected = ExpectedFrames.all[name] else { return XCTFail("no expected frame for \(name)", file: file, line: line) }
        assertScreen(g, expected)
    }

    func testEveryScenarioHasAnExpectedFrame() {
        XCTAssertEqual(Set(Self.scenarios().map(\.0)), Set(ExpectedFrames.all.keys))
    }

    // One test per frame, so a failure names the frame that changed.
    func testBase_120x40() throws { try check("base_120x40") }
    func testBase_80x24() throws { try check("base_80x24") }
    func testConfirm_120x40() throws { try check("confirm_120x40") }
    func testConfirm_80x24() throws { try check("confirm_80x24") }
    func testFailedOpenMic_120x40() throws { try check("failedOpenMic_120x40") }
    func testFailedOpenMic_80x24() throws { try check("failedOpenMic_80x24") }
    func testRecording_120x40() throws { try check("recording_120x40") }
    func testRecording_80x24() throws { try check("recording_80x24") }
    func testRecordingDemo_120x40() throws { try check("recordingDemo_120x40") }
    func testRecordingDemo_80x24() throws { try check("recordingDemo_80x24") }
    func testHelp_120x40() throws { try check("help_120x40") }
    func testHelp_80x24() throws { try check("help_80x24") }
    func testVision_120x40() throws { try check("vision_120x40") }
    func testVision_80x24() throws { try check("vision_80x24") }
    func testPathPrompt_120x40() throws { try check("pathPrompt_120x40") }
    func testPathPrompt_80x24() throws { try check("pathPrompt_80x24") }
    func testInterrupted_120x40() throws { try check("interrupted_120x40") }
    func testInterrupted_80x24() throws { try check("interrupted_80x24") }
    func testLatencyStats_120x40() throws { try check("latencyStats_120x40") }
    func testLatencyStats_80x24() throws { try check("latencyStats_80x24") }
    func testLatencyStats_60x16() throws { try check("latencyStats_60x16") }
    func testLatencyStats_40x12() throws { try check("latencyStats_40x12") }
    func testLatencyStats_10x5() throws { try check("latencyStats_10x5") }
    func testMessage_120x40() throws { try check("message_120x40") }
    func testMessage_80x24() throws { try check("message_80x24") }
    func testMinimum_40x12() throws { try check("minimum_40x12") }
    func testTooSmall_39x11() throws { try check("tooSmall_39x11") }
    func testTooSmall_80x11() throws { try check("tooSmall_80x11") }
    func testToolsInputBanner_120x40() throws { try check("toolsInputBanner_120x40") }
    func testToolsInputBanner_80x24() throws { try check("toolsInputBanner_80x24") }
    func testVoiceMenuFiltered_120x40() throws { try check("voiceMenuFiltered_120x40") }
    func testVoiceMenuFiltered_80x24() throws { try check("voiceMenuFiltered_80x24") }
    func testVoiceMenu_120x40() throws { try check("voiceMenu_120x40") }
    func testVoiceMenu_80x24() throws { try check("voiceMenu_80x24") }
    func testSearching_120x40() throws { try check("searching_120x40") }
    func testSearching_80x24() throws { try check("searching_80x24") }
    func testSearchKept_120x40() throws { try check("searchKept_120x40") }
    func testSearchKept_80x24() throws { try check("searchKept_80x24") }

    /// Every match is highlighted, the one shown more strongly; the text does not move.
    func testSearchMatchesAreHighlighted() throws {
        guard let (_, state, rows, cols) = Self.scenarios().first(where: { $0.0 == "searching_120x40" }) else { return XCTFail() }
        let (g, _) = Fixtures.render(state, rows: rows, columns: cols)
        let lines = g.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func cell(_ needle: String, inRowWith context: String) throws -> (Int, Int) {
            let row = try XCTUnwrap(lines.firstIndex { $0.contains(context) }, "no row with \(context)")
            let column = try XCTUnwrap(lines[row].range(of: needle)).lowerBound.utf16Offset(in: lines[row])
            return (row, column)
        }
        let theme = Theme.default
        let (r1, c1) = try cell("Tokyo", inRowWith: "sunny in Tokyo")
        XCTAssertEqual(g.style(row: r1, column: c1), theme.style(.menuSelected), "the newest match is the one shown")
        XCTAssertEqual(g.style(row: r1, column: c1 + 4), theme.style(.menuSelected))
        XCTAssertEqual(g.style(row: r1, column: c1 + 5), theme.style(.modelText))
        let (r0, c0) = try cell("Tokyo", inRowWith: "weather like in Tokyo")
        XCTAssertEqual(g.style(row: r0, column: c0), theme.style(.selection))
        XCTAssertEqual(g.style(row: r0, column: c0 - 1), theme.style(.userText))
        XCTAssertEqual(g.style(row: r0, column: 0), theme.style(.speakerLabel), "labels are not searched")
        XCTAssertEqual(state.status, "2/2")
    }
}
