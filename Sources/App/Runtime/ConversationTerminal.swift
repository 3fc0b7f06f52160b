import TUI

/// What the run loop needs from the terminal: `Terminal` in the program, an in-memory grid in the runtime
/// tests. Only the loop's thread calls it.
protocol ConversationTerminal: AnyObject {
    /// Descriptors the loop polls for readability besides the event queue's (stdin, the signal pipe).
    var pollFDs: [Int32] { get }
    /// The earliest time `readInput` must run even without input (a lone Esc, keyboard detection), or nil.
    var inputDeadline: Double? { get }
    var keyboardProtocol: Terminal.KeyboardProtocol { get }
    /// The size of the screen frames are drawn on.
    var screenSize: Size { get }
    /// Signals received since the last call; `pipeReadable`: whether the loop's poll saw the signal descriptor
    /// (`pollFDs`' second, if any) readable.
    func takeSignals(pipeReadable: Bool) -> TerminalSignals
    /// After a `.resize` signal: the new size.
    func handleResize() -> Size
    /// What the user typed since the last call, decoded; `readable`: whether the loop's poll saw the input
    /// descriptor (`pollFDs`' first) readable, nil when not known (a signal cut the poll short: poll before
    /// reading, a read may block).
    func readInput(now: Double?, readable: Bool?) -> [InputEvent]
    /// Gives the terminal back and stops the process until it is continued (Ctrl-Z).
    func suspend()
    /// Takes the terminal again after the process was continued from outside.
    func retake()
    /// Gives the terminal to `body` (an editor in the foreground) and takes it again after.
    func lend<T>(_ body: () -> T) -> T
    /// Gives the terminal back for good.
    func stop()
}

extension Terminal: ConversationTerminal {
    var pollFDs: [Int32] { [0, signalFD] }
    var screenSize: Size { screen.size }
}
