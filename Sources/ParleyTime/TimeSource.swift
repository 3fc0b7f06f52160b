#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seconds on one monotonic time base. Every module reads time through a `TimeSource` handed to it, so the
/// terminal's timeouts, the conversation's deadlines, the Live session's backoff and the simulator's replies
/// are measured on the same clock, and tests can replace it with one they move by hand.
public struct TimeSource: Sendable {
    private let read: @Sendable () -> Double
    private let readThroughSuspend: @Sendable () -> Double

    /// A source with no suspend: `nowThroughSuspend` reads the same clock.
    public init(_ read: @escaping @Sendable () -> Double) {
        self.read = read
        readThroughSuspend = read
    }

    /// A source whose main clock stops while the machine is suspended and whose second one does not.
    public init(_ read: @escaping @Sendable () -> Double, throughSuspend: @escaping @Sendable () -> Double) {
        self.read = read
        readThroughSuspend = throughSuspend
    }

    /// Seconds; only differences between readings of the same source mean anything.
    @inline(__always)
    public func now() -> Double { read() }

    /// Seconds on a clock that keeps counting while the machine is suspended (the lid closed). It moves with
    /// `now()` otherwise, so how far it got ahead of `now()` between two readings is how long the machine
    /// slept. Only differences between its own readings mean anything.
    public func nowThroughSuspend() -> Double { readThroughSuspend() }

    /// `CLOCK_MONOTONIC` in seconds: unaffected by wall-clock changes, and the base PulseAudio's chunk
    /// timestamps (nanoseconds) use too; through suspend, `CLOCK_BOOTTIME`.
    public static let monotonic = TimeSource({ TimeSource.monotonicSeconds() }, throughSuspend: { TimeSource.bootSeconds() })

    /// `CLOCK_MONOTONIC` in seconds, without a source (for code that must not capture one, e.g. signal paths).
    @inline(__always)
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// `CLOCK_BOOTTIME` in seconds: monotonic, and counting through suspend.
    public static func bootSeconds() -> Double {
        var ts = timespec()
        #if canImport(Glibc)
        clock_gettime(CLOCK_BOOTTIME, &ts)
        #else
        clock_gettime(CLOCK_MONOTONIC, &ts)  // Darwin's monotonic clock already counts through sleep
        #endif
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Wall-clock seconds since 1970 (`CLOCK_REALTIME`), for stamps; never for measuring (it jumps).
    public static func wallSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (the one conversion every module uses).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// A duration from seconds; non-finite or negative values become zero.
    public static func seconds(clamping value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        return .nanoseconds(Int64(min(value, 9e9) * 1e9))
    }
}
