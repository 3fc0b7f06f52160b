import Foundation
import Live
import ParleyTime
import ParleyLock

/// The one way pictures reach the session (`realtimeInput.video`): camera and screen frames and attached images
/// share the service's budget of one a second, so whichever comes second waits (or, for a camera frame, is
/// skipped until the next tick).
final class VideoWire: Sendable {
    private let deliver: @Sendable (Data) -> Bool
    private let time: TimeSource
    private let pause: @Sendable (Double) -> Void
    private let epoch: Double
    private let lastSent = Locked<Duration?>(nil)

    /// - Parameters:
    ///   - time: the app's clock, which the one-a-second budget is measured on.
    ///   - pause: waits out that many seconds of `time` (a test's manual clock moves itself forward instead).
    ///   - deliver: hands a JPEG to the session; false when no connection is live (it was dropped).
    init(time: TimeSource, pause: @escaping @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) },
         deliver: @escaping @Sendable (Data) -> Bool) {
        self.deliver = deliver
        self.time = time
        self.pause = pause
        epoch = time.now()
    }

    convenience init(session: LiveSession, time: TimeSource) { self.init(time: time) { session.sendVideo($0) } }

    /// Time since the wire was made.
    func now() -> Duration { .seconds(clamping: time.now() - epoch) }

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
                pause(w.inSeconds)
                continue
            }
            if send(jpeg, at: t) { return true }
            if wait(at: now()) == .zero { return false }
        }
    }
}
