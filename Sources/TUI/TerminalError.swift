/// Why the terminal could not be taken over.
public enum TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// stdin or stdout is not a terminal.
    case notATerminal
    /// curses could not start for this `TERM`.
    case cursesFailed(term: String)
    /// A terminal is already active in this process.
    case alreadyActive

    public var message: String {
        switch self {
        case .notATerminal: return "stdin and stdout must be a terminal"
        case .cursesFailed(let t): return "cannot start curses for TERM=\(t)"
        case .alreadyActive: return "the terminal is already in use"
        }
    }

    public var hint: String {
        switch self {
        case .notATerminal: return "run parley in a terminal, or use `parley ask` for scripts"
        case .cursesFailed: return "set TERM to a type terminfo knows, e.g. TERM=xterm-256color"
        case .alreadyActive: return "stop the existing Terminal first"
        }
    }

    public var description: String { "\(message) (\(hint))" }
}
