import CPulse
import ParleyTime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TimeSource {
    /// This source's reading in nanoseconds: the unit of the audio streams' timestamps (`AudioChunk.timestamp`,
    /// the echo canceller's timeline). The streams read the `TimeSource` they are given, so their stamps and
    /// the app's deadlines are on one clock.
    @inline(__always)
    public func nanoseconds() -> UInt64 {
        let s = now()
        return s > 0 ? UInt64(s * 1e9) : 0
    }
}

/// CPU time a thread has used (not a clock of time passing: what the audio threads cost).
public enum ThreadCPUTime {
    /// CPU time consumed so far by the calling thread, in nanoseconds.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
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
