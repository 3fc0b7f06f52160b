import Foundation
import XCTest
@testable import Live
import TUI

enum Fixtures {
    static let voices: [VoiceOption] = Voice.all.map { VoiceOption(name: $0.name, style: $0.style) }

    /// Persona menu entries as the App makes them (name, summary).
    static let personas: [VoiceOption] = [
        VoiceOption(name: "none", style: "the config's own settings"),
        VoiceOption(name: "Pirate", style: "Fenrir · −get_current_time · “Talk like a cheerful pirate. Keep every answer under three…”"),
        VoiceOption(name: "Code reviewer", style: "Charon · thinking high · +read_file +list_directory · “You review code: name the bug first…”"),
        VoiceOption(name: "German tutor", style: "Kore · “Speak German slowly; correct my mistakes gently, then…”"),
    ]

    static let toolSwitches: [ToolSwitch] = [
        ToolSwitch(name: "get_current_time", on: true),
        ToolSwitch(name: "list_directory", on: false),
        ToolSwitch(name: "read_file", on: true),
        ToolSwitch(name: "google_search", on: false),
        ToolSwitch(name: "read_text_file", server: "files", on: true),
        ToolSwitch(name: "search_files", server: "files", on: true),
    ]

    static func state() -> UIState {
        var s = UIState()
        s.header = HeaderModel(model: "gemini-live-2.5-flash", voice: "Puck", connection: .live, sessionAge: 125,
                               goAwaySeconds: 42, tokens: 12345, latencyMs: 420, pushToTalk: .tapToggle, demo: true)
        s.transcript.append(.user, "What's the weather like in Tokyo today?")
        s.transcript.append(.model, "It's sunny in Tokyo, around 21 degrees, with a light breeze from the bay.")
        s.transcript.append(.system, "voice changed to Kore")
        s.transcript.append(.user, "東京の天気は？ 😀 ありがとう")
        s.transcript.append(.model, "Sure — here is the", interim: " forecast for tomorrow", interrupted: false)
        s.meters = MetersModel(mic: LevelReading(level: -12, peak: -6, clipped: false),
                               speaker: LevelReading(level: -30, peak: -20, clipped: true),
                               talking: true, echoProtection: "echo: headphones")
        s.toolLog.calls = [
            ToolCallEntry(id: "1", name: "get_weather", server: "wx", arguments: #"{"city":"Tokyo"}"#, result: #"{"temp":21}"#, state: .ok, duration: 0.42),
            ToolCallEntry(id: "2", name: "run_shell", arguments: #"{"cmd":"ls -la"}"#, state: .denied),
            ToolCallEntry(id: "3", name: "search", arguments: #"{"q":"tokyo events"}"#, state: .running, duration: 1.5),
        ]
        return s
    }

    /// Three turns timed: first words and reply audio for each, a first sound for two, one of them slow.
    static let latencyStats = LatencyStats(stages: [
        .init(title: "first words on screen", explanation: "end of speech or Enter → the reply's first words are shown",
              count: 3, lastMs: 412, p50Ms: 398, p95Ms: 1210),
        .init(title: "first reply audio received", explanation: "end of speech or Enter → the first reply audio arrives",
              count: 3, lastMs: 388, p50Ms: 371, p95Ms: 1190),
        .init(title: "first sound played", explanation: "end of speech or Enter → the speaker plays its first sample",
              count: 0),
    ])

    /// A conversation of `turns` user/model pairs with some CJK and long lines.
    static func longTranscript(turns: Int) -> TranscriptModel {
        var t = TranscriptModel()
        for i in 0..<turns {
            t.append(.user, "Question \(i): what about topic number \(i)? 日本語も少し。")
            t.append(.model, "Answer \(i): " + String(repeating: "this is a fairly long reply that wraps over several lines ", count: 1 + i % 3))
        }
        return t
    }

    static func render(_ s: UIState, rows: Int, columns: Int, theme: Theme = .default) -> (GridScreen, FrameRenderer) {
        let g = GridScreen(rows: rows, columns: columns)
        let r = FrameRenderer(screen: g, theme: theme)
        r.render(s)
        return (g, r)
    }
}

/// Compares a grid's text with the expected text line by line, with a readable failure.
func assertScreen(_ g: GridScreen, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
    let got = g.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let want = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if got == want { return }
    var msg = "screen differs:\n"
    for i in 0..<max(got.count, want.count) {
        let a = i < got.count ? got[i] : "<none>", b = i < want.count ? want[i] : "<none>"
        if a != b { msg += "row \(i):\n  got:  |\(a)|\n  want: |\(b)|\n" }
    }
    msg += "full screen:\n" + g.text()
    XCTFail(msg, file: file, line: line)
}
