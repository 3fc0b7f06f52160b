import ParleyTime
import ParleyLock

/// A clock that moves only when a test says so. `advance` moves both of the source's clocks; `suspend` moves
/// only the one that counts through suspend, as a closed lid does.
public final class ManualTime: Sendable {
    private let value: Locked<(now: Double, slept: Double)>

    public init(_ start: Double = 1_000) { value = Locked((start, 0)) }

    /// A `TimeSource` reading this clock.
    public var source: TimeSource {
        TimeSource({ [self] in self.now }, throughSuspend: { [self] in self.value.withLock { $0.now + $0.slept } })
    }

    public var now: Double { value.withLock { $0.now } }

    public func advance(_ seconds: Double) { value.withLock { $0.now += seconds } }

    public func set(_ t: Double) { value.withLock { $0.now = t } }

    /// The machine sleeps for `seconds`: `now()` does not move, `nowThroughSuspend()` does.
    public func suspend(_ seconds: Double) { value.withLock { $0.slept += seconds } }
}

/// The real monotonic clock plus a jump a test makes: time flows as usual (timers and backoff fire), and
/// `jump` skips hours at once, e.g. past a resumption handle's lifetime.
public final class ShiftedTime: Sendable {
    private let offset = Locked(0.0)

    public init() {}

    public var source: TimeSource { TimeSource { [self] in TimeSource.monotonicSeconds() + self.offset.withLock { $0 } } }

    public func jump(_ seconds: Double) { offset.withLock { $0 += seconds } }
}
