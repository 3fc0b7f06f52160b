import TUI

/// The connection as the session reports it (`LiveEvent`s from its `ConnectionMachine`), as one value: whether
/// it is live, whether the app is offline, when the next attempt comes, and the header's connection, computed
/// from it in one place.
package enum LinkState: Sendable, Equatable {
    /// Opening a connection; `attempt` > 0 after a failed one (offline), `resuming` when a conversation goes on.
    case connecting(attempt: Int, resuming: Bool)
    case live
    /// The connection closed; the session says next whether it reconnects, hands over or fails.
    case closed
    /// Offline: the next attempt is due at `at` (the loop's clock).
    case retrying(at: Double)
    case failed(reason: String)
    /// The session was closed (quitting): no connection, none coming.
    case ended

    var isLive: Bool { self == .live }

    /// Lost and being retried: typed turns queue, push-to-talk pauses, `r` retries now.
    package var isOffline: Bool {
        switch self {
        case .retrying: true
        case .connecting(let attempt, _): attempt > 0
        case .live, .closed, .failed, .ended: false
        }
    }

    /// When the next attempt is due, while offline.
    var retryAt: Double? { if case .retrying(let at) = self { at } else { nil } }

    package func header(now: Double) -> ConnectionState {
        switch self {
        case .connecting(let attempt, _) where attempt > 0: .offlineRetrying(inSeconds: nil)
        case .connecting(_, let resuming): resuming ? .resuming(inSeconds: nil) : .connecting
        case .live: .live
        case .closed: .resuming(inSeconds: nil)
        case .retrying(let at): .offlineRetrying(inSeconds: max(0, Int((at - now).rounded(.up))))
        case .failed(let reason): .failed(reason: reason)
        case .ended: .offline
        }
    }
}
