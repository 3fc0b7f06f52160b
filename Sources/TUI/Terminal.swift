import CNcursesw
import ParleyTime
#if canImport(Glibc)
import Glibc
#endif

/// The terminal's lifetime: takes it over (locale, curses, raw mode, hidden cursor, bracketed paste, kitty
/// keyboard detection) and gives it back on `stop()`, on SIGINT/SIGTERM/SIGHUP (through the App, which
/// sees them in `takeSignals()`) and on crashes (restore, then re-raise).
///
/// Input is not read with curses: the App polls fd 0 and `signalFD`, then calls `readInput(now:)`.
/// Main thread only. A main loop looks like this:
///
/// ```swift
/// let terminal = try Terminal.start()
/// defer { terminal.stop() }
/// let renderer = FrameRenderer(screen: terminal.screen, theme: ThemeLoader.standard().load(name).theme)
/// renderer.render(ui)
/// while running {
///     // timeout: the earliest of terminal.inputDeadline, ptt.deadline, the next meter frame; -1 when idle
///     poll([stdin, terminal.signalFD, appWakeFD], timeout)
///     let sig = terminal.takeSignals()
///     if !sig.isDisjoint(with: [.interrupt, .terminate, .hangup]) { break }
///     if sig.contains(.resize) { terminal.handleResize(); renderer.invalidate() }
///     for event in terminal.readInput() + terminal.flushInput() { /* KeyMap, PushToTalk, editors… */ }
///     renderer.render(ui, dirty: changedRegions)
/// }
/// ```
public final class Terminal {
    /// Keyboard protocol detection state.
    public enum KeyboardProtocol: Sendable, Equatable {
        /// Queries sent, replies pending (keys work; Space is treated as legacy until known).
        case detecting
        /// The kitty protocol is on: Space reports press, repeat and release.
        case kitty
        /// No kitty protocol: infer holds from auto-repeat.
        case legacy
    }

    /// Start-up options.
    public struct Options: Sendable {
        /// Kitty progressive-enhancement flags to push (1 disambiguate | 2 event types | 8 all keys as escapes).
        public var kittyFlags: Int = 11
        /// Ask the terminal whether it speaks the kitty protocol.
        public var detectKitty = true
        /// Give up waiting for the detection replies after this many seconds.
        public var detectionTimeout: Double = 1.0
        public var bracketedPaste = true
        /// Esc-key ambiguity timeout for the decoder.
        public var escapeTimeout: Double = 0.05
        /// Also wake this fd (an eventfd or pipe of the App; 8 bytes are written) when a signal arrives.
        public var extraWakeFD: Int32?
        /// Draw without colours; defaults to `NO_COLOR` being set and non-empty.
        public var noColor: Bool
        /// The clock for the detection and Esc timeouts: the App's own, so the deadlines it polls on and the
        /// times it passes to `readInput(now:)` are on the same base.
        public var time: TimeSource
        public init(noColor: Bool = (getenv("NO_COLOR").map { $0.pointee != 0 } ?? false), time: TimeSource = .monotonic) {
            self.noColor = noColor
            self.time = time
        }
    }

    /// The screen to hand to a `FrameRenderer`.
    public let screen: NcursesScreen
    /// Poll this for readability too: a byte arrives on resize and quit signals. `takeSignals()` drains it.
    public let signalFD: Int32
    public private(set) var keyboardProtocol: KeyboardProtocol
    /// True once stdin reported end of file.
    public private(set) var inputClosed = false

    private let options: Options
    private var decoder: KeyDecoder
    private var detection: KittyDetection?
    private var kittyPushed = false
    private var stopped = false
    private let pipeWrite: Int32
    private let output: UnsafeMutablePointer<FILE>
    private nonisolated(unsafe) static var isActive = false

    /// Takes over the terminal and draws nothing yet. Fast: detection replies are read later through
    /// `readInput`, so no waiting happens here.
    public static func start(_ options: Options = Options()) throws(TerminalError) -> Terminal {
        guard !isActive else { throw .alreadyActive }
        guard isatty(0) == 1, isatty(1) == 1 else { throw .notATerminal }
        return try Terminal(options)
    }

    private init(_ options: Options) throws(TerminalError) {
        self.options = options
        decoder = KeyDecoder(escapeTimeout: options.escapeTimeout)
        Self.ensureUTF8Locale()
        if tcgetattr(0, SignalState.savedTermios) == 0 { SignalState.hasSavedTermios = true }
        let term = getenv("TERM").map { String(cString: $0) } ?? "dumb"
        guard let out = fdopen(1, "w"), let input = fdopen(0, "r") else { throw .notATerminal }
        output = out
        guard newterm(nil, out, input) != nil else { throw .cursesFailed(term: term) }
        raw(); noecho(); nonl()
        typeahead(-1)  // never let curses peek at stdin
        intrflush(parley_stdscr(), false)
        keypad(parley_stdscr(), false)
        curs_set(0)
        // Until a screen has been through endwin() once, ncurses flushes its output at every cursor move
        // (lib_mvcur.c flushes while `_endwin == ewInitial`): a frame of the meters went out as five or six
        // writes of 8–40 bytes (strace of the main thread: 92 writes a second while a reply played, each a
        // wake-up of the terminal or of sshd). Leaving and retaking the screen before anything is drawn makes
        // every frame one write. Both happen in the first flush and the first refresh, before parley's first
        // frame: the screen the user had stays up until that frame, as it did.
        endwin()
        refresh()
        screen = NcursesScreen(noColor: options.noColor, output: out)

        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        signalFD = fds[0]
        pipeWrite = fds[1]
        keyboardProtocol = options.detectKitty ? .detecting : .legacy

        // Bytes that undo everything, written by the crash path without curses.
        let restore = "\u{1b}[<u" + "\u{1b}[?2004l" + "\u{1b}[0m" + "\u{1b}[?25h" + "\u{1b}[?1049l" + "\r\n"
        let bytes = Array(restore.utf8)
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        p.initialize(from: bytes, count: bytes.count)
        SignalState.restoreBytes = p
        SignalState.restoreCount = bytes.count
        SignalState.pipeWrite = pipeWrite
        SignalState.extraWakeFD = options.extraWakeFD ?? -1
        SignalState.pending.store(0, ordering: .sequentiallyConsistent)
        SignalState.active.store(1, ordering: .sequentiallyConsistent)
        SignalState.installHandlers()
        atexit { SignalState.emergencyRestore() }
        Self.isActive = true

        var setup = ""
        if options.bracketedPaste { setup += "\u{1b}[?2004h" }
        if options.detectKitty {
            setup += KittyDetection.query
            detection = KittyDetection(sentAt: options.time.now(), timeout: options.detectionTimeout)
        }
        writeRaw(setup)
    }

    deinit { stop() }

    /// Gives the terminal back: pops kitty flags, bracketed paste off, cursor on, `endwin`, tty modes restored,
    /// signal handlers restored. Idempotent; call it on every exit path.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        drainDetectionReplies(timeout: 0.2)
        SignalState.uninstallAll()
        curs_set(1)
        endwin()
        var tail = ""
        if kittyPushed { tail += "\u{1b}[<u" }
        if options.bracketedPaste { tail += "\u{1b}[?2004l" }
        writeRaw(tail)
        if SignalState.hasSavedTermios { tcsetattr(0, TCSANOW, SignalState.savedTermios) }
        SignalState.active.store(0, ordering: .sequentiallyConsistent)
        SignalState.pipeWrite = -1
        SignalState.extraWakeFD = -1
        if signalFD >= 0 { close(signalFD) }
        if pipeWrite >= 0 { close(pipeWrite) }
        Self.isActive = false
    }

    /// Ctrl-Z, or SIGTSTP from outside (`.suspend`): gives the terminal back (kitty flags popped, bracketed paste
    /// off, cursor shown, alternate screen left, tty modes restored), stops the process, and takes the terminal
    /// over again when the shell resumes it (`fg`). Redraw everything afterwards (`FrameRenderer.invalidate()`
    /// then `render`).
    public func suspend() {
        guard !stopped else { return }
        release()
        // SIGSTOP, not raise(SIGTSTP): this may run on a Swift worker thread, which blocks SIGTSTP, so a raised
        // SIGTSTP would stay pending and nothing would happen. The shell sees a stopped job either way.
        let before = SignalState.continued.load(ordering: .sequentiallyConsistent)
        kill(getpid(), SIGSTOP)
        // kill() returns before the stop takes hold: wait for the SIGCONT, or the terminal would be taken
        // again before the shell gets it.
        while SignalState.continued.load(ordering: .sequentiallyConsistent) == before { usleep(5_000) }
        // Resumed; the SIGCONT that woke us also set `.resumed`, which `retake` makes harmless.
        retake()
    }

    /// Lends the terminal to a program run in the foreground (the user's editor): given back as for a suspend,
    /// `body` runs, then the terminal is taken again. Meanwhile Ctrl-C and Ctrl-\ are the program's (parley
    /// ignores them, as a shell does for its foreground job) and Ctrl-Z stops parley along with it; what they
    /// left pending is dropped. Redraw everything afterwards.
    public func lend<T>(_ body: () -> T) -> T {
        guard !stopped else { return body() }
        release()
        let signals = [SIGINT, SIGQUIT, SIGTSTP]
        let saved = UnsafeMutablePointer<sigaction>.allocate(capacity: signals.count)
        defer { saved.deallocate() }
        for (i, sig) in signals.enumerated() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = sig == SIGTSTP ? SIG_DFL : SIG_IGN
            sigaction(sig, &action, saved + i)
        }
        let value = body()
        for (i, sig) in signals.enumerated() { sigaction(sig, saved + i, nil) }
        let dropped: TerminalSignals = [.interrupt, .suspend, .resumed]
        SignalState.pending.bitwiseAnd(~dropped.rawValue, ordering: .sequentiallyConsistent)
        retake()
        return value
    }

    /// Gives the terminal back without stopping: kitty flags popped, bracketed paste off, cursor shown,
    /// alternate screen left, tty modes restored; `retake` undoes it.
    private func release() {
        var tail = ""
        if kittyPushed { tail += "\u{1b}[<u" }
        if options.bracketedPaste { tail += "\u{1b}[?2004l" }
        curs_set(1)
        endwin()
        // Said outright as well: endwin() alone left the alternate screen on in tmux.
        tail += "\u{1b}[0m\u{1b}[?25h\u{1b}[?1049l"
        writeRaw(tail)
        if SignalState.hasSavedTermios { tcsetattr(0, TCSANOW, SignalState.savedTermios) }
        SignalState.active.store(0, ordering: .sequentiallyConsistent)
    }

    /// Takes the terminal over again after the process was stopped and continued (raw mode, hidden cursor,
    /// alternate screen, bracketed paste, kitty flags). Redraw everything afterwards.
    public func retake() {
        guard !stopped else { return }
        SignalState.active.store(1, ordering: .sequentiallyConsistent)
        writeRaw("\u{1b}[?1049h")
        reset_prog_mode()
        raw(); noecho(); nonl()
        curs_set(0)
        clearok(parley_curscr(), true)
        refresh()
        var head = "\u{1b}[?25l"
        if options.bracketedPaste { head += "\u{1b}[?2004h" }
        if kittyPushed { head += "\u{1b}[>\(options.kittyFlags)u" }
        writeRaw(head)
        handleResize()
    }

    /// Signals received since the last call (drains `signalFD`).
    /// `pipeReadable`: whether `poll` saw `signalFD` readable; when it did not, the pipe is not read (a signal
    /// that lands after the poll is still taken, and its byte wakes the next poll at once).
    public func takeSignals(pipeReadable: Bool = true) -> TerminalSignals {
        if pipeReadable && signalFD >= 0 {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
                while read(signalFD, buf.baseAddress, buf.count) > 0 {}
            }
        }
        var s = TerminalSignals(rawValue: SignalState.pending.exchange(0, ordering: .sequentiallyConsistent))
        if inputClosed { s.insert(.hangup) }
        return s
    }

    /// After a `.resize` signal: reads the new size from the tty, resizes curses, and returns the size.
    /// Redraw everything afterwards (`FrameRenderer.invalidate()` then `render`).
    @discardableResult
    public func handleResize() -> Size {
        var rows: Int32 = 0, cols: Int32 = 0
        if parley_winsize(1, &rows, &cols) == 0 { resizeterm(rows, cols) }
        screen.invalidate()
        return screen.size
    }

    /// Reads what stdin has (call when poll reports fd 0 readable) and decodes it, then resolves the timeouts
    /// due (`flushInput`). Kitty detection replies are consumed here and also returned, so the App can update
    /// the header from `keyboardProtocol`. `readable`: whether the caller's `poll` just saw fd 0 readable (or
    /// hung up): false, stdin is not read; true, the first read needs no poll of its own; nil (not known),
    /// stdin is polled first.
    public func readInput(now given: Double? = nil, readable: Bool? = nil) -> [InputEvent] {
        let now = given ?? options.time.now()
        var events: [InputEvent] = []
        if readable != false { events = readStdin(now: now, pollFirst: readable == nil) }
        events += flushInput(now: now)
        for e in events { observe(e) }
        return events
    }

    private func readStdin(now: Double, pollFirst: Bool) -> [InputEvent] {
        var events: [InputEvent] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        for attempt in 0..<64 {
            if attempt > 0 || pollFirst {
                var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 0) > 0 else { break }
            }
            let n = read(0, &buf, buf.count)
            if n == 0 { inputClosed = true; SignalState.wake(); break }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; inputClosed = true; break }
            events += decoder.feed(buf[0..<n], now: now)
            if n < buf.count { break }
        }
        return events
    }

    /// Resolves timeouts (a lone Esc, detection without reply); call at `inputDeadline`.
    public func flushInput(now given: Double? = nil) -> [InputEvent] {
        let now = given ?? options.time.now()
        if let r = detection?.tick(now: now) { apply(r) }
        return decoder.flush(now: now)
    }

    /// The earliest time `flushInput` must run, or nil (use it in the poll timeout).
    public var inputDeadline: Double? {
        [decoder.deadline, keyboardProtocol == .detecting ? detection?.deadline : nil].compactMap { $0 }.min()
    }

    private func observe(_ e: InputEvent) {
        if let r = detection?.observe(e) { apply(r) }
    }

    private func apply(_ r: KittyDetection.Result) {
        switch r {
        case .supported:
            writeRaw("\u{1b}[>\(options.kittyFlags)u")
            kittyPushed = true
            keyboardProtocol = .kitty
        case .unsupported: keyboardProtocol = .legacy
        case .pending: break
        }
    }

    /// Quitting before the terminal answered the detection queries would leave the answers for the shell to
    /// print: wait briefly for them and discard them.
    private func drainDetectionReplies(timeout: Double) {
        guard keyboardProtocol == .detecting else { return }
        let end = options.time.now() + timeout
        var buf = [UInt8](repeating: 0, count: 1024)
        while keyboardProtocol == .detecting {
            let left = end - options.time.now()
            if left <= 0 { break }
            var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000) + 1) > 0 else { break }
            let n = read(0, &buf, buf.count)
            if n <= 0 { break }
            for e in decoder.feed(buf[0..<n], now: options.time.now()) { observe(e) }
        }
    }

    private func writeRaw(_ s: String) {
        guard !s.isEmpty else { return }
        fflush(output)
        let bytes = Array(s.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
            if n <= 0 { if errno == EINTR { continue }; break }
            off += n
        }
    }

    static func ensureUTF8Locale() {
        setlocale(LC_ALL, "")
        if let cs = nl_langinfo(nl_item(CODESET)), String(cString: cs).uppercased().filter({ $0 != "-" }) == "UTF8" { return }
        if setlocale(LC_CTYPE, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "en_US.UTF-8") }
    }
}
