/// When a record stream's data arrives, learned from its reads, so the audio thread can sleep through the
/// pieces that cannot complete a chunk (`PulseMainloop.holdData`).
///
/// A server sends each piece as soon as its source has captured it, so the piece ending at sample n arrives
/// at about `origin + duration(n)`, `origin` being a constant of the stream (when its first sample would have
/// arrived, had it been sent alone). A read at time t of everything up to sample n says
/// `origin <= t - duration(n)` (the data cannot have arrived after it was read), so the estimate is the lowest
/// such bound seen: a wake-up that came late raises it by `relaxNanoseconds` at most, so a server whose
/// pieces now come later is followed within a few chunks, and a bound more than `jumpNanoseconds` above it is
/// taken as it is: the stream paused (corked, suspended) and started again. (An estimate that is early only
/// costs wake-ups; one that is late delays chunks, which `PulseCapture` notices and resets.)
struct ArrivalEstimate: Equatable {
    /// How far the estimate follows a later arrival per read: less than the capture's margin, so one late
    /// wake-up cannot make a hold outlast the piece it waits for. When another recorder joined the source, the
    /// estimate was seen 15 ms early (its pieces had come in a burst); at 10 µs a read it took seconds to
    /// recover, holding for a few milliseconds of each chunk only.
    static let relaxNanoseconds: UInt64 = 200_000
    /// A bound this far above the estimate is a new start, not a late wake-up.
    static let jumpNanoseconds: UInt64 = 100_000_000
    /// The stream's sample rate times its channels.
    let samplesPerSecond: UInt64
    /// The estimated `origin` (monotonic ns); nil until the first read.
    private(set) var origin: UInt64?

    init(format: AudioFormat) {
        samplesPerSecond = UInt64(max(1, format.sampleRate * format.channels))
    }

    /// Everything up to `samples` (counted from the stream's start) was read at `now`, and had just arrived
    /// (not kept waiting by a hold).
    mutating func read(upTo samples: Int, at now: UInt64) {
        let elapsed = duration(samples)
        let bound = now > elapsed ? now - elapsed : 0
        if let o = origin, bound < o + Self.jumpNanoseconds {
            origin = min(o + Self.relaxNanoseconds, bound)
        } else {
            origin = bound
        }
    }

    /// Forget what was learned (the stream restarted, or data arrived earlier than estimated).
    mutating func reset() { origin = nil }

    /// When the piece that ends at or after sample `samples` can arrive at the earliest; nil while unknown.
    func arrival(ofSample samples: Int) -> UInt64? {
        origin.map { $0 + duration(samples) }
    }

    private func duration(_ samples: Int) -> UInt64 {
        UInt64(max(0, samples)) * 1_000_000_000 / samplesPerSecond
    }
}
