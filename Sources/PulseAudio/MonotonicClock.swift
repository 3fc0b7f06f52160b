import CPulse
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanosecond readings of the monotonic clock and of a thread's CPU time.
public enum MonotonicClock {
    /// Nanoseconds on `CLOCK_MONOTONIC`; comparable across threads, unaffected by wall-clock changes.
    @inline(__always)
    public static func now() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// CPU time consumed so far by the calling thread, in nanoseconds.
    @inline(__always)
    public static func threadCPUTime() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }

    /// Seconds between two `now()` readings.
    public static func seconds(from start: UInt64, to end: UInt64) -> Double {
        end >= start ? Double(end - start) / 1e9 : -Double(start - end) / 1e9
    }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> UInt64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Asks for a higher scheduling priority for the calling audio thread (nice -11, what PulseAudio itself uses),
/// so a busy machine delays it less. Needs CAP_SYS_NICE or an RLIMIT_NICE allowance; without them it silently
/// stays at the normal priority.
func raiseThreadPriority(name: String) {
    #if os(Linux)
    parley_set_thread_name(name)
    _ = parley_set_thread_nice(audioThreadNice)
    #endif
}

let audioThreadNice: Int32 = -11

