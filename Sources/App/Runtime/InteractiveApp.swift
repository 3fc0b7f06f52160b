import Foundation
import Live
import Logging
import ParleyTime
import PulseAudio
import TUI

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen conversation: one `poll()` on stdin, the terminal's signal pipe and the event queue; each
/// wake turns what happened into events, runs them through the reducer and the effect runner, and redraws
/// what changed.
final class InteractiveApp {
    let config: Config
    let demo: Bool
    let noAudio: Bool
    let resume: (ResumeStore.Saved, age: Double)?
    let paths: Paths
    /// The one clock: the terminal, the reducer and the meter cadence all read it.
    let time: TimeSource
    /// When `main` started, on `time`.
    let launchedAt: Double
    let logger = Logger(label: "parley")
    let events = EventQueue()

    init(
        config: Config, demo: Bool, noAudio: Bool, resume: (ResumeStore.Saved, age: Double)?, paths: Paths,
        time: TimeSource = .monotonic, launchedAt: Double
    ) {
        self.config = config
        self.demo = demo
        self.noAudio = noAudio
        self.resume = resume
        self.paths = paths
        self.time = time
        self.launchedAt = launchedAt
    }

    /// Runs until the user quits, on the calling thread (the process's main thread, not one of the
    /// concurrency pool's: the loop blocks in `poll`); returns the exit status.
    func run() throws -> Int32 {
        let (config, demo, noAudio, resume, paths, events, time, logger) =
            (config, demo, noAudio, resume, paths, events, time, logger)
        let launch = try waitFor {
            try await Launch.start(
                config: config, demo: demo, noAudio: noAudio, resume: resume, paths: paths, events: events, time: time,
                logger: logger)
        }
        var state = launch.initialState(demo: demo, noAudio: noAudio, resume: resume)
        let pump = Task(executorPreference: NetworkExecutor.shared) { [events, session = launch.session] in
            for await e in session.events { events.post(.live(e)) }
        }
        launch.session.start()
        let screen = ScreenPacer(renderer: launch.renderer)
        let runner = EffectRunner(launch: launch, events: events, paths: paths, screen: screen)
        screen.draw(state, audio: launch.audio, now: time.now(), force: true)
        logger.info("first frame drawn \(Int(((time.now() - launchedAt) * 1000).rounded())) ms after launch")

        func apply(_ event: AppEvent) {
            var pending = [event]
            while !pending.isEmpty {
                for effect in Reducer.reduce(&state, pending.removeFirst(), now: time.now()) {
                    pending += runner.perform(effect, state: state)
                }
            }
        }

        var keyboard = launch.terminal.keyboardProtocol
        while !state.quitting {
            wait(state: state, terminal: launch.terminal, screen: screen, audio: launch.audio)
            for event in collect(launch.terminal, screen: screen) { apply(event) }
            if launch.terminal.keyboardProtocol != keyboard {
                keyboard = launch.terminal.keyboardProtocol
                logger.info("keyboard protocol: \(keyboard) after \(Int(((time.now() - launchedAt) * 1000).rounded())) ms")
            }
            screen.draw(state, audio: launch.audio, now: time.now())
        }

        runner.stop()
        pump.cancel()
        // The loop is done with `launch`: the task that stops it is its only user from here on.
        let stopping = HandedOver(launch)
        waitFor { await stopping.value.stop() }
        launch.store?.close()
        // One line on the restored terminal: what the conversation used and cost.
        if state.usage.ledger.turnCount > 0 { StandardStream.write(state.usage.summaryLine + "\n", to: 1) }
        // A transcript that could not be saved whole is a failed run (EX_IOERR).
        return launch.store?.failure == nil ? 0 : 74
    }

    /// Blocks in `poll()` until input, a signal, an event, or the next deadline (none: sleep until woken).
    private func wait(state: AppState, terminal: Terminal, screen: ScreenPacer, audio: AudioIO) {
        let now = time.now()
        let deadline = [terminal.inputDeadline, state.nextDeadline(now: now), screen.nextMeterFrame(state, audio: audio)]
            .compactMap { $0 }.min()
        let timeout: Int32 = deadline.map { Int32(max(0, min(60_000, ($0 - now) * 1000)).rounded(.up)) } ?? -1
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: terminal.signalFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, nfds_t(fds.count), timeout)
    }

    /// What happened since the last wake, as events: signals, keys, the queue, and a tick.
    private func collect(_ terminal: Terminal, screen: ScreenPacer) -> [AppEvent] {
        var out: [AppEvent] = []
        let signals = terminal.takeSignals()
        if signals.contains(.resize) {
            out.append(.screenSize(terminal.handleResize()))
            screen.invalidate()
        }
        if !signals.isDisjoint(with: [.interrupt, .terminate, .hangup]) { out.append(.quitRequested) }
        if signals.contains(.suspend) {
            // kill -TSTP: the mic closes and the terminal is given back before stopping (the `.suspend` effect).
            out.append(.suspending)
        } else if signals.contains(.resumed) {
            // SIGCONT after a SIGSTOP from outside: take the terminal again and redraw everything.
            terminal.retake()
            screen.invalidate()
            out.append(.screenSize(terminal.screen.size))
        }
        out += terminal.readInput(now: time.now()).map { .input($0) }
        if terminal.keyboardProtocol == .kitty { out.append(.input(.kittyFlags(11))) }
        out += events.drain()
        out.append(.tick)
        return out
    }
}
