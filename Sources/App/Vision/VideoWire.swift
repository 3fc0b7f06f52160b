import Foundation
import Live
import Synchronization

/// The one way pictures reach the session (`realtimeInput.video`): camera and screen frames and attached images
/// share the service's budget of one a second, so whichever comes second waits (or, for a camera frame, is
/// skipped until the next tick).
final class VideoWire: Sendable {
    private let deliver: @Sendable (Data) -> Bool
    private let clock = ContinuousClock()
    private let epoch: ContinuousClock.Instant
    private let lastSent = Mutex<Duration?>(nil)

    /// - Parameter deliver: hands a JPEG to the session; false when no connection is live (it was dropped).
    init(deliver: @escaping @Sendable (Data) -> Bool) {
        self.deliver = deliver
        epoch = clock.now
    }

    convenience init(session: LiveSession) { self.init { session.sendVideo($0) } }

    /// Time since the wire was made.
    func now() -> Duration { clock.now - epoch }

    /// How long until a picture may go out.
    func wait(at now: Duration) -> Duration {
        lastSent.withLock { last in last.map { max(.zero, $0 + FramePacer.interval - now) } ?? .zero }
    }

    /// Sends `jpeg` if a second has passed since the last picture; false when too soon or not connected.
    func send(_ jpeg: Data, at now: Duration) -> Bool {
        let allowed = lastSent.withLock { last -> Bool in
            if let l = last, now - l < FramePacer.interval { return false }
            last = now
            return true
        }
        guard allowed else { return false }
        guard deliver(jpeg) else {
            lastSent.withLock { if $0 == now { $0 = nil } }
            return false
        }
        return true
    }

    /// Sends `jpeg` as soon as the pace allows (blocking the caller's thread meanwhile); false when not connected.
    func sendWhenAllowed(_ jpeg: Data) -> Bool {
        while true {
            let t = now()
            let w = wait(at: t)
            if w > .zero {
                Thread.sleep(forTimeInterval: Double(w.components.seconds) + Double(w.components.attoseconds) / 1e18)
                continue
            }
            if send(jpeg, at: t) { return true }
            if wait(at: now()) == .zero { return false }
        }
    }
}
