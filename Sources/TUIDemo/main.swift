// TUIDemo: parley's conversation on canned content in the real terminal, for trying themes and for the tmux smoke
// test. The state, the reducer and the views are parley's own (`Conversation`, `TUI`); only the other side is made
// up (`DemoConversation`): no network, no sound, nothing saved. Keys as in parley: Space talk, v voice menu,
// p persona menu, ? help, Tab type, t tools, m mode, L latency, $ usage, PgUp/PgDn/Home/End scroll, q quit.
// `TUIDemo --theme NAME` picks a theme; `--still` keeps the meters still. For tests: `--pid-file PATH` writes the
// pid once the first frame is drawn, `--crash SIGNUM` raises a signal after the first frame (the crash path must
// restore the terminal), `--timing` prints launch → first frame on exit; `--bench` times frames on the grid.
#if canImport(Glibc)
import Glibc
#endif
import Conversation
import ParleyTime
import Live
import TUI

let args = CommandLine.arguments
let themeName: String = args.firstIndex(of: "--theme").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil } ?? "default"
let still = args.contains("--still")
let pidFile: String? = args.firstIndex(of: "--pid-file").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
let crashSignal: Int32? = args.firstIndex(of: "--crash").flatMap { $0 + 1 < args.count ? Int32(args[$0 + 1]) : nil }
let timing = args.contains("--timing")
let time = TimeSource.monotonic
let mainStart = time.now()

/// `TUIDemo --bench`: full-frame render time of a 1,000-turn transcript on the grid backend (no terminal needed),
/// so the number can be taken from a release build.
func benchGrid() {
    var s = DemoConversation.startingState(screen: Size(rows: 24, columns: 80), now: time.now()).ui
    s.transcript = TranscriptModel()
    for i in 0..<1000 {
        s.transcript.append(.user, "Question \(i): what about topic number \(i)? 日本語も少し。")
        s.transcript.append(.model, "Answer \(i): " + String(repeating: "this is a fairly long reply that wraps over several lines ", count: 1 + i % 3))
    }
    let streaming = s.transcript.append(.model, "streaming", interim: "")
    for (rows, cols) in [(24, 80), (40, 120)] {
        let g = GridScreen(rows: rows, columns: cols)
        let r = FrameRenderer(screen: g)
        var t0 = time.now()
        r.render(s)
        let first = time.now() - t0
        var full: [Double] = [], stream: [Double] = []
        for i in 0..<500 {
            s.transcript.update(streaming) { $0.interim = " word\(i)" }
            t0 = time.now()
            r.invalidate()
            r.render(s, dirty: .all)
            full.append(time.now() - t0)
            s.transcript.update(streaming) { $0.interim += " more" }
            t0 = time.now()
            r.render(s, dirty: .transcript)
            stream.append(time.now() - t0)
        }
        t0 = time.now()
        r.scrollTranscript(.top, in: &s)
        r.render(s, dirty: .transcript)
        let top = time.now() - t0
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
    terminal = try Terminal.start(Terminal.Options(time: time))
} catch {
    let msg = Array("TUIDemo: \(error.message) (\(error.hint))\n".utf8)
    _ = write(2, msg, msg.count)
    exit(1)
}
let loaded = ThemeLoader.standard().load(themeName)
let renderer = FrameRenderer(screen: terminal.screen, theme: loaded.theme)
var state = DemoConversation.startingState(screen: terminal.screen.size, now: time.now())
if let e = loaded.error { state.ui.transcript.append(.error, e.message) }
var demo = DemoConversation()
var meters = DemoMeters()
/// What is on screen, to draw only what changed (as parley's `ScreenPacer` does).
var drawn: UIState?

@MainActor func draw(now: Double) {
    var ui = state.ui
    if !still { meters.apply(to: &ui, state: state, speaking: now < demo.speakingUntil, now: now) }
    if let drawn {
        let dirty = DirtyRegions.changed(from: drawn, to: ui)
        if !dirty.isEmpty { renderer.render(ui, dirty: dirty) }
    } else {
        renderer.render(ui, dirty: .all)
    }
    drawn = ui
}

@MainActor func redrawAll() {
    renderer.invalidate()
    drawn = nil
}

/// The effects only the terminal can carry out; the rest `DemoConversation` answers.
@MainActor func perform(_ effect: Effect, _ s: AppState) -> [AppEvent] {
    switch effect {
    case .scroll(let command):
        var ui = s.ui
        renderer.scrollTranscript(command, in: &ui)
        return [.scrolled(ui.transcript.scroll)]
    case .suspend:
        terminal.suspend()
        redrawAll()
        return [.screenSize(terminal.screen.size)]
    default:
        return []
    }
}

draw(now: time.now())
let firstFrame = time.now()
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
    let bootNow = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9 - (time.now() - t)
    return bootNow - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}
let launchToFrame = processAge(at: firstFrame)

// parley's loop (`ConversationLoop`) on the demo's terminal: wait for input, a signal or the next deadline; turn
// what happened into events; run them through the reducer; draw what changed.
while !state.quitting {
    let now = time.now()
    let meterFrame = still ? nil : now + 1.0 / 20
    let deadline = [terminal.inputDeadline, state.nextDeadline(now: now), demo.nextDeadline, meterFrame].compactMap { $0 }.min()
    let timeout: Int32 = deadline.map { Int32(max(0, min(60_000, ($0 - now) * 1000)).rounded(.up)) } ?? -1
    var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: terminal.signalFD, events: Int16(POLLIN), revents: 0)]
    _ = poll(&fds, 2, timeout)
    let t = time.now()

    var events: [AppEvent] = []
    let signals = terminal.takeSignals()
    if signals.contains(.resize) {
        events.append(.screenSize(terminal.handleResize()))
        redrawAll()
    }
    if !signals.isDisjoint(with: [.interrupt, .terminate, .hangup]) { events.append(.quitRequested) }
    if signals.contains(.suspend) {
        events.append(.suspending)
    } else if signals.contains(.resumed) {
        terminal.retake()
        redrawAll()
        events.append(.screenSize(terminal.screen.size))
    }
    events += terminal.readInput(now: t).map { .input($0) }
    if terminal.keyboardProtocol == .kitty { events.append(.input(.kittyFlags(11))) }
    events += demo.due(now: t)
    events.append(.tick)
    for event in events { demo.apply(event, to: &state, now: t) { perform($0, $1) } }
    draw(now: t)
}
terminal.stop()
if timing {
    let launch = launchToFrame.map { String(Int(($0 * 1000).rounded())) } ?? "?"
    let msg = Array("TUIDemo: main → first frame \(Int(((firstFrame - mainStart) * 1000).rounded())) ms; process start → first frame \(launch) ms (±10 ms)\n".utf8)
    _ = write(2, msg, msg.count)
}
