// TUIDemo: every view of the TUI with canned state in the real terminal, for trying themes and for the tmux
// smoke test. Keys as in parley: Space talk, v voice menu, ? help, Tab/i type, t tools, m mode, PgUp/PgDn/Home/End
// scroll, q quit. `TUIDemo --theme NAME` picks a theme; `--still` keeps the meters still. For tests:
// `--pid-file PATH` writes the pid once the first frame is drawn, `--crash SIGNUM` raises a signal after the first
// frame (the crash path must restore the terminal), `--timing` prints launch → first frame on exit.
#if canImport(Glibc)
import Glibc
#endif
import ParleyTime
import Live
import TUI

let voices: [VoiceOption] = Voice.all.map { VoiceOption(name: $0.name, style: $0.style) }

let args = CommandLine.arguments
let themeName: String = args.firstIndex(of: "--theme").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil } ?? "default"
let still = args.contains("--still")
let pidFile: String? = args.firstIndex(of: "--pid-file").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
let crashSignal: Int32? = args.firstIndex(of: "--crash").flatMap { $0 + 1 < args.count ? Int32(args[$0 + 1]) : nil }
let timing = args.contains("--timing")
let mainStart = TimeSource.monotonicSeconds()

func cannedState() -> UIState {
    var s = UIState()
    s.header = HeaderModel(model: "gemini-live-2.5-flash", voice: "Puck", connection: .live, sessionAge: 0,
                           tokens: 1234, latencyMs: 420, pushToTalk: .tapToggle, demo: true)
    let t = [
        (Speaker.user, "Hello! What can you do?"),
        (.model, "I can answer questions out loud, look things up with tools, and switch voices whenever you like."),
        (.user, "What's the weather like in Tokyo today?"),
        (.model, "It's sunny in Tokyo, around 21 degrees, with a light breeze from the bay. A good day for a walk along the Sumida river."),
        (.system, "voice changed to Kore"),
        (.user, "東京の天気は？ 😀 ありがとう"),
        (.model, "晴れです。気温は21度くらいです。"),
    ]
    for i in 0..<6 { s.transcript.append(.system, "demo line \(i + 1) of the scrollback") }
    for (sp, text) in t { s.transcript.append(sp, text) }
    s.transcript.append(.model, "Tomorrow looks cloudy with", interim: " a chance of rain in the", interrupted: false)
    s.meters = MetersModel(echoProtection: "echo: headphones")
    s.toolLog.calls = [
        ToolCallEntry(id: "1", name: "get_weather", server: "wx", arguments: #"{"city":"Tokyo"}"#, result: #"{"temp":21,"sky":"sunny"}"#, state: .ok, duration: 0.42),
        ToolCallEntry(id: "2", name: "run_shell", arguments: #"{"cmd":"rm -rf /tmp/x"}"#, result: "denied by the user", state: .denied),
        ToolCallEntry(id: "3", name: "search", server: "web", arguments: #"{"q":"tokyo events"}"#, state: .running, duration: 1.5),
    ]
    return s
}

/// `TUIDemo --bench`: full-frame render time of a 1,000-turn transcript on the grid backend (no terminal needed),
/// so the number can be taken from a release build.
func benchGrid() {
    var s = cannedState()
    s.transcript = TranscriptModel()
    for i in 0..<1000 {
        s.transcript.append(.user, "Question \(i): what about topic number \(i)? 日本語も少し。")
        s.transcript.append(.model, "Answer \(i): " + String(repeating: "this is a fairly long reply that wraps over several lines ", count: 1 + i % 3))
    }
    let streaming = s.transcript.append(.model, "streaming", interim: "")
    for (rows, cols) in [(24, 80), (40, 120)] {
        let g = GridScreen(rows: rows, columns: cols)
        let r = FrameRenderer(screen: g)
        var t0 = TimeSource.monotonicSeconds()
        r.render(s)
        let first = TimeSource.monotonicSeconds() - t0
        var full: [Double] = [], stream: [Double] = []
        for i in 0..<500 {
            s.transcript.update(streaming) { $0.interim = " word\(i)" }
            t0 = TimeSource.monotonicSeconds()
            r.invalidate()
            r.render(s, dirty: .all)
            full.append(TimeSource.monotonicSeconds() - t0)
            s.transcript.update(streaming) { $0.interim += " more" }
            t0 = TimeSource.monotonicSeconds()
            r.render(s, dirty: .transcript)
            stream.append(TimeSource.monotonicSeconds() - t0)
        }
        t0 = TimeSource.monotonicSeconds()
        r.scrollTranscript(.top, in: &s)
        r.render(s, dirty: .transcript)
        let top = TimeSource.monotonicSeconds() - t0
        r.scrollTranscript(.bottom, in: &s)
        func stats(_ xs: [Double]) -> String {
            let v = xs.sorted()
            let mean = v.reduce(0, +) / Double(v.count)
            let p99 = v[min(v.count - 1, v.count * 99 / 100)]
            return "mean \(Int((mean * 1e6).rounded())) µs, p99 \(Int((p99 * 1e6).rounded())) µs (n=\(v.count))"
        }
        print("grid \(cols)x\(rows), 2001 entries: first frame \(Int((first * 1e6).rounded())) µs; full frame \(stats(full)); transcript-only frame \(stats(stream)); Home (wraps all) \(Int((top * 1e3).rounded())) ms")
    }
}
if args.contains("--bench") { benchGrid(); exit(0) }

let terminal: Terminal
do {
    terminal = try Terminal.start()
} catch {
    let msg = Array("TUIDemo: \(error.message) (\(error.hint))\n".utf8)
    _ = write(2, msg, msg.count)
    exit(1)
}
let loaded = ThemeLoader.standard().load(themeName)
let renderer = FrameRenderer(screen: terminal.screen, theme: loaded.theme)
var state = cannedState()
if let e = loaded.error { state.status = e.message }
state.screen = terminal.screen.size
var ptt = PushToTalk(mode: .autoRepeat)
var micPeak = PeakHold(), spkPeak = PeakHold()
let start = TimeSource.monotonicSeconds()
var lastProtocol = terminal.keyboardProtocol
var quit = false
var inputHistory: [String] = []
renderer.render(state)
let firstFrame = TimeSource.monotonicSeconds()
if let pidFile {
    let text = Array("\(getpid())\n".utf8)
    let fd = pidFile.withCString { Glibc.open($0, O_WRONLY | O_CREAT | O_TRUNC, mode_t(0o644)) }
    if fd >= 0 { _ = write(fd, text, text.count); Glibc.close(fd) }
}
if let crashSignal { raise(crashSignal) }

/// Seconds since the process started (from /proc, 10 ms resolution), for the launch → first frame number.
func processAge(at t: Double) -> Double? {
    guard let f = fopen("/proc/self/stat", "r") else { return nil }
    defer { fclose(f) }
    var buf = [CChar](repeating: 0, count: 1024)
    guard fgets(&buf, Int32(buf.count), f) != nil else { return nil }
    let stat = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let paren = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: paren)...].split(separator: " ")
    guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
    var boot = timespec()
    clock_gettime(CLOCK_BOOTTIME, &boot)
    let bootNow = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9 - (TimeSource.monotonicSeconds() - t)
    return bootNow - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}
let launchToFrame = processAge(at: firstFrame)

@MainActor func updateMeters(_ now: Double) {
    let t = now - start
    let mic = state.meters.talking ? -18 + 12 * sin(t * 7) : -52 + 4 * sin(t * 3)
    let spk = -24 + 16 * sin(t * 2.3)
    state.meters.mic = LevelReading(level: mic, peak: micPeak.update(level: mic, now: now), clipped: mic > -1)
    state.meters.speaker = LevelReading(level: spk, peak: spkPeak.update(level: spk, now: now), clipped: spk > -9)
    state.header.sessionAge = Int(t)
}

@MainActor func handle(_ e: KeyEvent, now: Double) -> DirtyRegions {
    if let o = state.overlay {
        switch o {
        case .voiceMenu(var m):
            switch m.handle(e) {
            case .choose(let name):
                state.overlay = nil
                if name != state.header.voice {
                    state.header.voice = name
                    state.transcript.append(.system, "voice changed to \(name)")
                }
                return .all
            case .close: state.overlay = nil; return .all
            case .changed: state.overlay = .voiceMenu(m); return [.overlay, .status]
            case .none: return []
            }
        case .confirm(var c):
            switch c.handle(e, screen: state.screen) {
            case .yes, .no, .quit: state.overlay = nil; return .all
            case .changed: state.overlay = .confirm(c); return [.overlay]
            case .none: return []
            }
        case .help, .message, .latencyStats, .usage, .pathPrompt:
            if e.kind == .release { return [] }
            state.overlay = nil; return .all
        }
    }
    if var ed = state.input {
        switch ed.handle(e) {
        case .submit(let text):
            inputHistory = ed.history
            state.input = nil
            if !text.isEmpty {
                state.transcript.append(.user, text)
                state.transcript.append(.model, "(demo) You said: \(text)")
            }
            return .all
        case .leave: state.input = nil; return .all
        case .edited: state.input = ed; return .input
        case .none: return []
        }
    }
    if state.toolLog.focused {
        let before = state.toolLog
        _ = state.toolLog.handle(e)
        return before == state.toolLog ? [] : .all
    }
    if e == .ctrl("z") {
        _ = ptt.cancel()
        state.meters.talking = false
        terminal.suspend()
        renderer.invalidate()
        return .all
    }
    if e.isSpace && state.header.pushToTalk != .openMic {
        if let a = ptt.handle(e, now: now) { state.meters.talking = a == .startTalking; return .meters }
        return []
    }
    guard let cmd = KeyMap.default.command(for: e) else { return [] }
    switch cmd {
    case .pushToTalk: return []
    case .voiceMenu: state.overlay = .voiceMenu(VoiceMenu(voices: voices, current: state.header.voice)); return [.overlay, .status]
    case .help: state.overlay = .help(top: 0); return [.overlay, .status]
    case .latencyStats:
        state.overlay = .latencyStats(LatencyStats(stages: [
            .init(title: "first words on screen", explanation: "(demo figures)", count: 3, lastMs: 380, p50Ms: 412, p95Ms: 530),
            .init(title: "first reply audio received", explanation: "(demo figures)", count: 3, lastMs: 405, p50Ms: 420, p95Ms: 560),
            .init(title: "first sound played", explanation: "(demo figures)", count: 0),
        ]))
        return [.overlay, .status]
    case .textInput: state.input = LineEditor(history: inputHistory); return .all
    case .toolLogFocus:
        state.toolLog.focus()
        return .all
    case .toggleMicMode:
        if state.header.pushToTalk == .openMic {
            state.header.pushToTalk = lastProtocol == .kitty ? .kittyHold : .tapToggle
            state.meters.talking = false
        } else {
            _ = ptt.cancel()
            state.header.pushToTalk = .openMic
            state.meters.talking = true
        }
        return [.header, .meters, .status]
    case .quit, .interruptOrQuit: quit = true; return []
    case .scrollPageUp: renderer.scrollTranscript(.pageUp, in: &state); return .transcript
    case .scrollPageDown: renderer.scrollTranscript(.pageDown, in: &state); return .transcript
    case .scrollTop: renderer.scrollTranscript(.top, in: &state); return .transcript
    case .scrollBottom: renderer.scrollTranscript(.bottom, in: &state); return .transcript
    case .scrollLineUp: renderer.scrollTranscript(.lines(-1), in: &state); return .transcript
    case .scrollLineDown: renderer.scrollTranscript(.lines(1), in: &state); return .transcript
    case .export: state.status = "export is not part of the demo"; return .status
    case .toggleThoughts:
        state.transcript.setShowThoughts(!state.transcript.showThoughts)
        return .transcript
    case .retryNow, .toggleSharing, .attachImage, .usageStats, .search, .searchOlder, .searchNewer, .toggleRecording: return []
    }
}

var lastMeterFrame = 0.0
while !quit {
    let now = TimeSource.monotonicSeconds()
    var timeout: Int32 = still ? -1 : Int32(max(0, (lastMeterFrame + 0.033 - now) * 1000))
    for d in [terminal.inputDeadline, ptt.deadline].compactMap({ $0 }) {
        let ms = Int32(max(0, (d - now) * 1000) + 1)
        timeout = timeout < 0 ? ms : min(timeout, ms)
    }
    var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: terminal.signalFD, events: Int16(POLLIN), revents: 0)]
    _ = poll(&fds, 2, timeout)
    let t = TimeSource.monotonicSeconds()
    var dirty: DirtyRegions = []

    let sig = terminal.takeSignals()
    if !sig.intersection([.interrupt, .terminate, .hangup]).isEmpty { break }
    if sig.contains(.resize) { state.screen = terminal.handleResize(); renderer.invalidate(); dirty = .all }

    var events: [InputEvent] = []
    if fds[0].revents != 0 { events += terminal.readInput(now: t) }
    events += terminal.flushInput(now: t)
    for ev in events {
        switch ev {
        case .key(let k): dirty.formUnion(handle(k, now: t))
        case .paste(let text):
            var ed = state.input ?? LineEditor()
            ed.insert(text)
            state.input = ed
            dirty = .all
        case .kittyFlags, .deviceAttributes, .focus: break
        }
    }
    if terminal.keyboardProtocol != lastProtocol {
        lastProtocol = terminal.keyboardProtocol
        ptt.mode = lastProtocol == .kitty ? .kitty : .autoRepeat
        if state.header.pushToTalk != .openMic { state.header.pushToTalk = lastProtocol == .kitty ? .kittyHold : .tapToggle }
        dirty.formUnion([.header, .status])
    }
    if let a = ptt.tick(now: t) { state.meters.talking = a == .startTalking; dirty.insert(.meters) }
    if !still && t - lastMeterFrame >= 0.033 {
        lastMeterFrame = t
        updateMeters(t)
        dirty.formUnion([.meters, .header])
    }
    if quit { break }
    if !dirty.isEmpty { renderer.render(state, dirty: dirty) }
}
terminal.stop()
if timing {
    let launch = launchToFrame.map { String(Int(($0 * 1000).rounded())) } ?? "?"
    let msg = Array("TUIDemo: main → first frame \(Int(((firstFrame - mainStart) * 1000).rounded())) ms; process start → first frame \(launch) ms (±10 ms)\n".utf8)
    _ = write(2, msg, msg.count)
}
