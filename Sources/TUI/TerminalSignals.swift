#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Signals the App must act on; collected by `Terminal.takeSignals()`.
public struct TerminalSignals: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// SIGWINCH: call `Terminal.handleResize()` and redraw.
    public static let resize = TerminalSignals(rawValue: 1)
    /// SIGINT: quit cleanly.
    public static let interrupt = TerminalSignals(rawValue: 2)
    /// SIGTERM: quit cleanly.
    public static let terminate = TerminalSignals(rawValue: 4)
    /// SIGHUP, or stdin closed: the terminal is gone; quit.
    public static let hangup = TerminalSignals(rawValue: 8)
    /// SIGTSTP from outside (`kill -TSTP`): call `Terminal.suspend()`, which gives the terminal back first.
    public static let suspend = TerminalSignals(rawValue: 16)
    /// SIGCONT: the process was stopped and continued (perhaps by SIGSTOP, which cannot be caught): call
    /// `Terminal.retake()` and redraw everything.
    public static let resumed = TerminalSignals(rawValue: 32)
}

/// Process-wide state the signal handlers use. Set up before handlers are installed and only read by them,
/// so the handlers stay async-signal-safe (atomics, write(2), tcsetattr(3), sigaction(2), raise(3)).
enum SignalState {
    static let pending = Atomic<UInt32>(0)
    /// SIGCONTs received, so `Terminal.suspend` knows when it has really been stopped and continued.
    static let continued = Atomic<UInt32>(0)
    /// 1 while curses owns the terminal and the restore bytes must be written on a crash.
    static let active = Atomic<Int32>(0)
    nonisolated(unsafe) static var pipeWrite: Int32 = -1
    nonisolated(unsafe) static var extraWakeFD: Int32 = -1
    nonisolated(unsafe) static var outputFD: Int32 = 1
    nonisolated(unsafe) static var inputFD: Int32 = 0
    nonisolated(unsafe) static var restoreBytes: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) static var restoreCount = 0
    nonisolated(unsafe) static var savedTermios = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static var hasSavedTermios = false
    nonisolated(unsafe) static let oldActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) static var installed = [Bool](repeating: false, count: 65)

    static let crashSignals: [Int32] = [SIGSEGV, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE]
    static let quitSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    static let jobSignals: [Int32] = [SIGTSTP, SIGCONT, SIGQUIT]

    /// Writes the precomputed restore sequence and the saved tty modes. Async-signal-safe; runs once.
    static func emergencyRestore() {
        guard active.exchange(0, ordering: .sequentiallyConsistent) == 1 else { return }
        if let p = restoreBytes {
            var off = 0
            while off < restoreCount {
                let n = write(outputFD, p + off, restoreCount - off)
                if n <= 0 { break }
                off += n
            }
        }
        if hasSavedTermios { tcsetattr(inputFD, TCSANOW, savedTermios) }
    }

    static func wake() {
        var b: UInt8 = 1
        if pipeWrite >= 0 { _ = write(pipeWrite, &b, 1) }
        if extraWakeFD >= 0 { var one: UInt64 = 1; _ = write(extraWakeFD, &one, 8) }
    }

    static func install(_ sig: Int32, flags: Int32, handler: @convention(c) (Int32) -> Void) {
        var sa = sigaction()
        sa.__sigaction_handler.sa_handler = handler
        sa.sa_flags = flags
        sigemptyset(&sa.sa_mask)
        if sigaction(sig, &sa, oldActions + Int(sig)) == 0 { installed[Int(sig)] = true }
    }

    static func uninstallAll() {
        for sig in crashSignals + quitSignals + jobSignals + [SIGWINCH] where installed[Int(sig)] {
            sigaction(sig, oldActions + Int(sig), nil)
            installed[Int(sig)] = false
        }
    }

    static func installHandlers() {
        install(SIGWINCH, flags: SA_RESTART) { _ in
            SignalState.pending.bitwiseOr(TerminalSignals.resize.rawValue, ordering: .sequentiallyConsistent)
            SignalState.wake()
        }
        for sig in quitSignals {
            install(sig, flags: SA_RESTART) { sig in
                let bit: TerminalSignals = sig == SIGINT ? .interrupt : sig == SIGTERM ? .terminate : .hangup
                let old = SignalState.pending.bitwiseOr(bit.rawValue, ordering: .sequentiallyConsistent).oldValue
                if old & bit.rawValue != 0 {
                    // Second time and the App has not quit: restore and die of the signal.
                    SignalState.emergencyRestore()
                    signal(sig, SIG_DFL)
                    raise(sig)
                    return
                }
                SignalState.wake()
            }
        }
        install(SIGTSTP, flags: SA_RESTART) { _ in
            SignalState.pending.bitwiseOr(TerminalSignals.suspend.rawValue, ordering: .sequentiallyConsistent)
            SignalState.wake()
        }
        install(SIGCONT, flags: SA_RESTART) { _ in
            SignalState.continued.add(1, ordering: .sequentiallyConsistent)
            SignalState.pending.bitwiseOr(TerminalSignals.resumed.rawValue, ordering: .sequentiallyConsistent)
            SignalState.wake()
        }
        // SIGQUIT (Ctrl-\\ elsewhere, `kill -QUIT`): give the terminal back, then die of it the default way, without
        // the runtime's backtrace (which would print over the screen and keep it for seconds).
        install(SIGQUIT, flags: Int32(bitPattern: UInt32(SA_RESETHAND))) { sig in
            SignalState.emergencyRestore()
            signal(sig, SIG_DFL)
            raise(sig)
        }
        for sig in crashSignals {
            install(sig, flags: Int32(SA_NODEFER) | Int32(bitPattern: UInt32(SA_RESETHAND))) { sig in
                SignalState.emergencyRestore()
                // Hand the signal to whoever had it before (e.g. the Swift runtime's backtracer, which prints the
                // crash report), then make sure the process dies of it even if that handler returned.
                sigaction(sig, SignalState.oldActions + Int(sig), nil)
                raise(sig)
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }
}
