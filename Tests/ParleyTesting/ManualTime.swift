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
