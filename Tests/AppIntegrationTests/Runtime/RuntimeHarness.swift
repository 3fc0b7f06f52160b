import Dispatch
import Foundation
import Live
import LiveSimulator
import Logging
import NIOCore
import ParleyTesting
import ParleyTime
import PulseAudio
import PulseAudioTesting
import ParleyLock
import TUI
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// The whole runtime in this process: the real `ConversationLoop` (reducer, `EffectRunner`, `AudioIO`,
/// `LiveSession`) on a thread of its own, drawing on an in-memory grid, reading keys a test presses, with fake
/// sound devices, a clock the test moves by hand, and the simulator on loopback. Tests assert on what went
/// on the wire (`wire`, and the simulator's stats) and what is on the screen.
final class RuntimeHarness: @unchecked Sendable {
    let clock: ManualTime
    let simulator: LiveSimulator
    let mic: FakeAudioSource
    let speaker: FakeAudioSink
    let terminal: GridTerminal
    let wire = RecordingTransport()
    let events = EventQueue()
    let launch: Launch
    private let home: String
    /// The home was the test's: it outlives this harness (a later run resumes from it).
    private let ownsHome: Bool
    private let resume: ResumePlan?
    private let finished = DispatchSemaphore(value: 0)
    private var running = false
    /// `start(passesAsARealRun: true)`: the deadline the loop waits for now, and how many waits it has begun.
    private var passesAsARealRun = false
    private let loopDeadline = Locked<(deadline: Double?, waits: Int)>((nil, 0))

    /// The transcript the conversation is saved to, when the harness was made with `transcripts: true`.
    let transcriptPath: String?
    private let logger: Logger

    /// Starts the simulator and builds a `Launch` from fakes; `start()` runs the loop. A test that runs the
    /// app twice (a conversation, then `--resume`) passes the simulator it is `sharing`, which outlives the harness (the
    /// handles live in it), its own `home` (the resume file), the transcript `store` and the `resume` plan.
    /// - Parameters:
    ///   - transcripts: save the conversation as the app does (to `transcriptPath`), and so let it be recorded.
    ///   - canceller: the fake devices run it as PulseAudio's streams do (far end on write, near end on each chunk).
    ///   - simulatorLoops: event loops of the simulator's own (NIO's shared ones otherwise).
    ///   - logger: where the runtime logs (nothing by default).
    ///   - access: how the app reaches the simulator, resolved from the config (its endpoint the simulator's URL)
    ///     on the harness's clock; by default the Gemini API with no credential.
    init(simulator options: SimulatorOptions = .quick, rows: Int = 30, columns: Int = 160,
         sharing existing: LiveSimulator? = nil, home: String? = nil, store: TranscriptStore? = nil,
         resume: ResumePlan? = nil, transcripts: Bool = false,
         canceller: WebRTCCanceller? = nil, simulatorLoops: (any EventLoopGroup)? = nil,
         logger: Logger? = nil, access: AccessResolver? = nil,
         configure: (inout Config) -> Void = { _ in }) async throws {
        let clock = ManualTime()
        self.clock = clock
        mic = FakeAudioSource(time: clock.source, canceller: canceller)
        speaker = FakeAudioSink(time: clock.source, canceller: canceller)
        self.home = home ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-runtime-\(UUID().uuidString)").path
        ownsHome = home == nil
        self.resume = resume
        try FileManager.default.createDirectory(atPath: self.home, withIntermediateDirectories: true)
        if let existing {
            simulator = existing
        } else {
            simulator = simulatorLoops.map { LiveSimulator(options: options, eventLoopGroup: $0, time: clock.source) }
                ?? LiveSimulator(options: options, time: clock.source)
            try await simulator.start()
        }
        var config = Config()
        config.endpoint = simulator.url
        configure(&config)
        terminal = GridTerminal(rows: rows, columns: columns)
        var registry = ToolRegistry.builtIn(config.tools, time: clock.source)
        let logger = logger ?? Logger(label: "parley.runtime-test", factory: { _ in SwiftLogNoOpLogHandler() })
        self.logger = logger
        let (mcp, _) = await MCPServers.start([], into: &registry, logger: logger)
        let audio = AudioIO(devices: SoundDevices(source: mic, sink: speaker, canceller: canceller), config: config, events: events,
                            time: clock.source)
        let store = try store ?? (transcripts ? TranscriptStore(directory: self.home + "/data") : nil)
        transcriptPath = store?.path
        launch = Launch.assemble(
            config: config,
            access: try await access?.resolve(config, clock.source)
                ?? LiveAccess(backend: .geminiAPI, endpoint: simulator.url, credential: .none, authorizer: nil, source: "the simulator"),
            audio: audio, tools: registry, mcp: mcp,
            simulator: existing == nil ? simulator : nil, store: store, terminal: terminal, screen: terminal.screen,
            problems: [], resume: resume,
            events: events, time: clock.source, logger: logger, transport: wire)
    }

    var paths: Paths { Paths(environment: ["HOME": home]) }

    /// Runs the conversation loop on its own thread, as `InteractiveApp` runs it on the main thread.
    /// `passesAsARealRun`: the loop passes when an event or key wakes it and when `advance` moves the clock past
    /// the deadline it waits for (its meter frames, timers), and `advance` returns once that pass is done, as a
    /// poll timeout would have fired there; not on every `advance`, nor on real-time poll timeouts. For the
    /// instruction count: callgrind slows real time, not the clock moved by hand, so either of those would set
    /// the number of passes (9 in 10 were poll timeouts; then, woken at each `advance`, 18 a second of the clock
    /// where a real run draws 30).
    func start(passesAsARealRun: Bool = false) {
        self.passesAsARealRun = passesAsARealRun
        let deadline = loopDeadline
        let report: @Sendable (Double?) -> Void = { d in deadline.withLock { $0 = (d, $0.waits + 1) } }
        let loop = HandedOver(ConversationLoop(
            launch: launch, events: events, paths: paths, time: clock.source, logger: logger, launchedAt: clock.now,
            handMovedClock: passesAsARealRun ? report : nil))
        let state = HandedOver(launch.initialState(demo: false, noAudio: false, resume: resume))
        let finished = finished
        running = true
        let thread = Thread {
            loop.value.run(from: state.value)
            finished.signal()
        }
        thread.name = "parley-test-loop"
        thread.start()
    }

    /// Quits through the reducer, waits for the loop to end, and gives everything back.
    func stop() async {
        if running {
            events.post(.quitRequested)
            XCTAssertEqual(finished.wait(timeout: .now() + 5), .success, "the loop ends on quit")
            running = false
        }
        let launch = HandedOver(launch)
        await launch.value.stop()
        launch.value.store?.close()
        if ownsHome { try? FileManager.default.removeItem(atPath: home) }
    }

    // MARK: - The user

    func press(_ keys: KeyEvent...) { terminal.send(keys.map { .key($0) }) }

    /// Space held down (the kitty protocol reports the release).
    func spaceDown() { press(KeyEvent(.character(" "), kind: .press)) }
    func spaceUp() { press(KeyEvent(.character(" "), kind: .release)) }

    /// Holds Space for `milliseconds` of speech (the manual clock moves half a second: a hold, not a tap), then
    /// releases it; the chunk in flight when the gate closes ends the turn on the wire.
    func talk(milliseconds: Int, file: StaticString = #filePath, line: UInt = #line) {
        spaceDown()
        wait("the mic to open", file: file, line: line) { mic.isGateOpen }
        speak(milliseconds: milliseconds)
        advance(0.5)
        spaceUp()
        wait("the mic to close", file: file, line: line) { !mic.isGateOpen }
        speak(milliseconds: 20)
    }

    /// Tab, the text, Enter, Esc: a typed turn, and back to the keys.
    func typeTurn(_ text: String) {
        press(KeyEvent(.tab))
        terminal.send(text.map { .key(.char($0)) })
        press(KeyEvent(.enter), KeyEvent(.escape))
    }

    /// `milliseconds` of a 440 Hz tone from the mic, as if spoken now; each 20 ms chunk goes through the
    /// gate to `AudioIO` on this thread.
    func speak(milliseconds: Int) {
        let n = AudioFormat.capture.sampleCount(milliseconds: milliseconds)
        let tone = (0..<n).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
        mic.feed(tone)
    }

    // MARK: - Waiting and looking

    /// The last frame the loop presented, as text.
    var screen: String { terminal.screen.presented }

    /// The header line of the last frame.
    var header: String { String(screen.split(separator: "\n", omittingEmptySubsequences: false).first ?? "") }

    /// Waits (checking every 10 ms, at most `timeout` seconds) until `condition` holds.
    @discardableResult
    func wait(_ what: @autoclosure () -> String, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line,
              _ condition: () -> Bool) -> Bool {
        let ok = eventually(timeout: timeout, what(), file: file, line: line, condition)
        if !ok { print("screen when the wait failed:\n\(screen)\nwire: \(wire.kinds)") }
        return ok
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    func waitForScreen(_ text: String, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        wait("the screen to show \"\(text)\"", timeout: timeout, file: file, line: line) { screen.contains(text) }
    }

    /// Waits for a live connection (the header stops saying "connecting").
    func waitUntilLive(file: StaticString = #filePath, line: UInt = #line) {
        wait("setupComplete", file: file, line: line) { simulator.stats().setups.count >= 1 && wire.kinds.contains("setup") }
        wait("the header to say live", file: file, line: line) { header.contains(" live") }
    }

    /// Moves the manual clock and wakes the loop so the reducer sees the new time (with `passesAsARealRun`,
    /// only if the clock passed the loop's deadline, and then returns after that pass).
    func advance(_ seconds: Double) {
        clock.advance(seconds)
        guard passesAsARealRun else { return events.wake() }
        let (deadline, waits) = loopDeadline.withLock { $0 }
        guard let deadline, deadline <= clock.now else { return }
        events.wake()
        let giveUp = Date().addingTimeInterval(60)
        while loopDeadline.withLock({ $0.waits }) == waits && Date() < giveUp { usleep(100) }
    }
}

extension SimulatorOptions {
    /// A healthy service that answers at once and sends reply audio fast, with `turnComplete` right after
    /// the reply (not after it would have played in real time).
    static var quick: SimulatorOptions {
        var o = SimulatorOptions(replyDelay: .milliseconds(5), audioSpeedup: 50, burstInterval: .milliseconds(5),
                                 turnCompleteAfterPlayback: false, resumptionUpdateAfterSetup: true)
        o.faultScope = .firstConnection
        return o
    }
}

/// A terminal with no terminal: frames go to a grid, keys come from the test. The loop polls a pipe the test
/// writes a byte to with each key, as it polls stdin.
final class GridTerminal: ConversationTerminal, @unchecked Sendable {
    let screen: PresentedScreen
    private let input = Locked<[InputEvent]>([])
    private let readFD: Int32
    private let writeFD: Int32

    init(rows: Int, columns: Int) {
        screen = PresentedScreen(rows: rows, columns: columns)
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for f in fds { _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK) }
        (readFD, writeFD) = (fds[0], fds[1])
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Queues input for the loop and wakes it. Any thread.
    func send(_ events: [InputEvent]) {
        input.withLock { $0 += events }
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)
    }

    var pollFDs: [Int32] { [readFD] }
    var inputDeadline: Double? { nil }
    var keyboardProtocol: Terminal.KeyboardProtocol { .kitty }
    var screenSize: Size { screen.size }
    func takeSignals(pipeReadable: Bool) -> TerminalSignals { [] }
    func handleResize() -> Size { screen.size }
    func readInput(now: Double?, readable: Bool?) -> [InputEvent] {
        var buf = [UInt8](repeating: 0, count: 256)
        if readable != false { while read(readFD, &buf, buf.count) > 0 {} }
        return input.withLock { q in
            defer { q.removeAll() }
            return q
        }
    }
    func suspend() {}
    func retake() {}
    func lend<T>(_ body: () -> T) -> T { body() }
    func stop() {}
}

/// A `GridScreen` that publishes each presented frame, so a test thread can read what the loop's thread drew
/// without touching the grid.
final class PresentedScreen: Screen, @unchecked Sendable {
    private let grid: GridScreen
    /// The cells of the last frame presented: a copy that shares storage with the grid until the loop draws
    /// again, so presenting costs the loop nothing; the text is made when a test reads it (the benchmark counts
    /// the loop's drawing, not a test's reading).
    private let frame: Locked<[[GridScreen.Cell]]>

    init(rows: Int, columns: Int) {
        grid = GridScreen(rows: rows, columns: columns)
        frame = Locked(grid.cells)
    }

    var size: Size { grid.size }
    func put(row: Int, column: Int, text: String, style: CellStyle) { grid.put(row: row, column: column, text: text, style: style) }
    func clear(_ rect: Rect, style: CellStyle) { grid.clear(rect, style: style) }
    func invalidate() { grid.invalidate() }
    func present() {
        grid.present()
        let cells = grid.cells
        frame.withLock { $0 = cells }
    }

    /// The text of the last frame presented.
    var presented: String { GridScreen.text(frame.withLock { $0 }) }
}

/// The WebSocket transport with a record of every client message it sent, in order: what went on the wire.
final class RecordingTransport: LiveTransport {
    private let inner = WebSocketTransport(logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
    private let sent = Locked<[String]>([])

    func open(url: String, headers: [(name: String, value: String)],
              onEvent: @escaping @Sendable (TransportEvent) -> Void) -> any LiveConnection {
        Recording(inner: inner.open(url: url, headers: headers, onEvent: onEvent), transport: self)
    }

    private struct Recording: LiveConnection {
        let inner: any LiveConnection
        let transport: RecordingTransport
        func send(_ text: String) {
            transport.sent.withLock { $0.append(text) }
            inner.send(text)
        }
        func close(code: Int, reason: String) { inner.close(code: code, reason: reason) }
    }

    /// Each message as its kind: the top-level field, and for `realtimeInput` its field too
    /// (`realtimeInput.activityStart`, `realtimeInput.audio`).
    var kinds: [String] {
        messages.map { message in
            let top = message.keys.sorted().joined(separator: "+")
            if let input = message["realtimeInput"] as? [String: Any] {
                return "realtimeInput." + input.keys.sorted().joined(separator: "+")
            }
            return top
        }
    }

    /// Every `setup` sent, in order.
    var setups: [[String: Any]] { messages.compactMap { $0["setup"] as? [String: Any] } }

    /// Every `toolResponse` sent, in order.
    var toolResponses: [[String: Any]] { messages.compactMap { $0["toolResponse"] as? [String: Any] } }

    /// Every message sent, decoded from its JSON.
    var messages: [[String: Any]] {
        sent.withLock { $0 }.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
}

extension RecordingTransport: @unchecked Sendable {}

/// How a `RuntimeHarness` resolves its `LiveAccess` from the config (its endpoint the simulator's URL) on the
/// harness's clock. A struct rather than a bare closure, so that a trailing closure still goes to `configure`.
struct AccessResolver {
    let resolve: (Config, TimeSource) async throws -> LiveAccess
    init(_ resolve: @escaping (Config, TimeSource) async throws -> LiveAccess) { self.resolve = resolve }
}
