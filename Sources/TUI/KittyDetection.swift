/// Detects the kitty keyboard protocol from the terminal's replies: after `CSI ? u` and `CSI c` are sent, a
/// `CSI ? flags u` reply that arrives before the `CSI … c` (DA1) reply means the protocol is supported.
/// Terminals that do not know `CSI ? u` answer only DA1. Pure; `Terminal` drives it.
public struct KittyDetection: Sendable, Equatable {
    /// What is known so far.
    public enum Result: Sendable, Equatable { case pending, supported, unsupported }

    /// The queries to write to the terminal.
    public static let query = "\u{1b}[?u\u{1b}[c"

    public private(set) var result: Result = .pending
    /// Give up (unsupported) at this time if DA1 never comes.
    public let deadline: Double
    private var sawFlags = false

    public init(sentAt: Double, timeout: Double) { deadline = sentAt + timeout }

    /// Feeds a decoded event; returns the result once it is known (once).
    public mutating func observe(_ e: InputEvent) -> Result? {
        guard result == .pending else { return nil }
        switch e {
        case .kittyFlags: sawFlags = true; return nil
        case .deviceAttributes: result = sawFlags ? .supported : .unsupported; return result
        default: return nil
        }
    }

    /// Resolves to unsupported when the deadline passes without a DA1 reply.
    public mutating func tick(now: Double) -> Result? {
        guard result == .pending, now >= deadline else { return nil }
        result = .unsupported
        return result
    }
}
