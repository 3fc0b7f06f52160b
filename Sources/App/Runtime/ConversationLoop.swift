import Conversation
import Live
import Logging
import ParleyTime
import TUI

#if canImport(Glibc)
import Glibc
#endif

/// The conversation's run loop over a started `Launch`: one `poll()` on the terminal's descriptors and the event
/// queue; each wake turns what happened into events, runs them through the reducer and the effect runner, and
/// redraws what changed. It runs on the calling thread until the state says to quit; `InteractiveApp` runs it on
/// the process's main thread, the runtime tests on one of their own.
final class ConversationLoop {
    private let launch: Launch
    private let events: EventQueue
    private let paths: Paths
    private let time: TimeSource
    private let logger: Logger
    /// When `main` started, on `time`.
    private let launchedAt: Double
    /// Whether the reducer has been told the terminal reports key releases (once: it is a setting, and a pass
    /// that carries it runs the reducer once more).
    private var toldKeyReleases = false
    /// For a clock moved by hand (the runtime tests): told the deadline of each wait before it starts, and the
    /// wait then has no timeout while that deadline is ahead, since the clock's mover wakes the loop once it has
    /// passed. Polling until such a deadline in real time would add passes no real run has: under callgrind,
    /// with everything 10–50 times slower than the clock, a pass per 33 ms of real time is a dozen per 33 ms of
    /// the clock.
    private let handMovedClock: (@Sendable (_ deadline: Double?) -> Void)?

    init(launch: Launch, events: EventQueue, paths: Paths, time: TimeSource, logger: Logger, launchedAt: Double,
         handMovedClock: (@Sendable (_ deadline: Double?) -> Void)? = nil) {
        self.launch = launch
        self.events = events
        self.paths = paths
        self.time = time
        self.logger = logger
        self.launchedAt = launchedAt
        self.handMovedClock = handMovedClock
    }

    /// Starts the session, runs until the user quits, and stops the tools; the caller stops `launch`.
    func run(from initial: AppState) {
        var state = initial
        let pump = Task(executorPreference: NetworkExecutor.shared) { [events, session = launch.session] in
            for await e in session.events { events.post(.live(e)) }
        }
        launch.session.start()
        let screen = ScreenPacer(renderer: launch.renderer)
        let runner = EffectRunner(launch: launch, events: events, paths: paths, screen: screen)
        screen.draw(state, audio: launch.audio, now: time.now(), force: true)
        logger.info("first frame drawn \(Int(((time.now() - launchedAt) * 1000).rounded())) ms after launch")

        func apply(_ event: AppEvent) {
            Reducer.apply(event, to: &state, now: time.now) { runner.perform($0, state: $1) }
        }

        let terminal = launch.terminal
        var keyboard = terminal.keyboardProtocol
        while !state.quitting {
            let ready = wait(state: state, screen: screen)
            for event in collect(screen: screen, ready: ready) { apply(event) }
            if terminal.keyboardProtocol != keyboard {
                keyboard = terminal.keyboardProtocol
                logger.info("keyboard protocol: \(keyboard) after \(Int(((time.now() - launchedAt) * 1000).rounded())) ms")
            }
            screen.draw(state, audio: launch.audio, now: time.now())
        }
        runner.stop()
        pump.cancel()
    }

    /// Which of the polled descriptors were readable when the loop woke: those with nothing to read are not
    /// read (a pass woken by the meters' frame rate makes no system calls before drawing).
    struct Ready {
        /// nil: not known (a signal cut the poll short): stdin is polled before it is read, as it may block.
        var input: Bool?
        var signals = true
        var events = true
    }

    /// Blocks in `poll()` until input, a signal, an event, or the next deadline (none: sleep until woken).
    private func wait(state: AppState, screen: ScreenPacer) -> Ready {
        let now = time.now()
        let deadline = [launch.terminal.inputDeadline, state.nextDeadline(now: now), screen.nextMeterFrame()]
            .compactMap { $0 }.min()
        var timeout: Int32 = deadline.map { Int32(max(0, min(60_000, ($0 - now) * 1000)).rounded(.up)) } ?? -1
        if let handMovedClock {
            handMovedClock(deadline)
            if timeout > 0 { timeout = -1 }
        }
        let terminalFDs = launch.terminal.pollFDs
        var fds = (terminalFDs + [events.fd]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        // EINTR (a signal): look at everything, stdin with a poll of its own.
        guard poll(&fds, nfds_t(fds.count), timeout) >= 0 else { return Ready(input: nil) }
        return Ready(input: fds[0].revents != 0,
                     signals: terminalFDs.count > 1 ? fds[1].revents != 0 : false,
                     events: fds[fds.count - 1].revents != 0)
    }

    /// What happened since the last wake, as events: signals, keys, the queue, and a tick.
    private func collect(screen: ScreenPacer, ready: Ready) -> [AppEvent] {
        let terminal = launch.terminal
        var out: [AppEvent] = []
        let signals = terminal.takeSignals(pipeReadable: ready.signals)
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
            out.append(.screenSize(terminal.screenSize))
        }
        out += terminal.readInput(now: time.now(), readable: ready.input).map { .input($0) }
        if (terminal.keyboardProtocol == .kitty) != toldKeyReleases {
            toldKeyReleases.toggle()
            if toldKeyReleases { out.append(.input(.kittyFlags(11))) }
        }
        out += events.drain(pipeReadable: ready.events)
        out.append(.tick)
        return out
    }
}
