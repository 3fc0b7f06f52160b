import ParleyTime
import Synchronization

/// A clock that moves only when a test says so.
public final class ManualTime: Sendable {
    private let value: Mutex<Double>

    public init(_ start: Double = 1_000) { value = Mutex(start) }

    /// A `TimeSource` reading this clock.
    public var source: TimeSource { TimeSource { [self] in self.now } }

    public var now: Double { value.withLock { $0 } }

    public func advance(_ seconds: Double) { value.withLock { $0 += seconds } }

    public func set(_ t: Double) { value.withLock { $0 = t } }
}

/// The real monotonic clock plus a jump a test makes: time flows as usual (timers and backoff fire), and
/// `jump` skips hours at once, e.g. past a resumption handle's lifetime.
public final class ShiftedTime: Sendable {
    private let offset = Mutex(0.0)

    public init() {}

    public var source: TimeSource { TimeSource { [self] in TimeSource.monotonicSeconds() + self.offset.withLock { $0 } } }

    public func jump(_ seconds: Double) { offset.withLock { $0 += seconds } }
}
