/// The speaker's meter: the level of what is heard now. Each block written to the server is measured
/// `segmentMilliseconds` at a time when it is placed (its first sample's "heard at" time), and each piece moves
/// the meter when its time comes. A pure value, kept by the playback core under its lock.
///
/// Measured whole, a block moved the bar once: mid-reply the top-up hands the server about 200 ms at a time (its
/// timer's period), so the bar would step every fifth of a second however often the screen looked, and a block
/// longer than the meter's `staleAfter` (250 ms; a block can be as long as `aheadMilliseconds`, 400) read as
/// silence before its end. In 20 ms pieces the speaker's bar follows the reply's syllables as the mic's follows
/// speech (its chunks are 20 ms).
struct PlaybackMeter: Sendable {
    /// The length of the pieces a block is measured in (the capture chunk's length).
    static let segmentMilliseconds = 20
    /// Pieces waiting to be heard, oldest first; at most `capacity` (20 s of audio, far more than the server
    /// holds: the meter is read every frame, and a stopped screen must not make it grow without end).
    private var pending: [(at: UInt64, level: AudioLevel)] = []
    private static let capacity = 1000
    private var meter = LevelMeter()
    private let format: AudioFormat

    init(format: AudioFormat) { self.format = format }

    /// Measures a block first heard at `heardFrom` (ns on the app's clock), piece by piece.
    mutating func place(_ samples: UnsafeBufferPointer<Int16>, heardFrom: UInt64) {
        let piece = max(1, format.sampleCount(milliseconds: Self.segmentMilliseconds))
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + piece)
            let at = heardFrom + UInt64(format.duration(sampleCount: start) * 1e9)
            pending.append((at, AudioLevel(measuring: UnsafeBufferPointer(rebasing: samples[start..<end]))))
            start = end
        }
        if pending.count > Self.capacity { pending.removeFirst(pending.count - Self.capacity) }
    }

    /// What the meter shows at `now`: every piece heard by then has moved it.
    mutating func reading(at now: UInt64) -> LevelReading {
        let heard = pending.firstIndex { $0.at > now } ?? pending.count
        for p in pending[..<heard] { meter.update(p.level, at: Double(p.at) / 1e9) }
        if heard > 0 { pending.removeFirst(heard) }
        return meter.reading(at: Double(now) / 1e9)
    }

    /// Nothing written will be heard (a flush): the bar drops at `now`; the held peak stays and falls as usual.
    mutating func silence(at now: UInt64) {
        pending.removeAll()
        meter.update(.silence, at: Double(now) / 1e9)
    }

    /// Forgets the pieces not yet heard (the stream closed or was lost).
    mutating func forgetPending() { pending.removeAll() }

    /// Pieces written and not yet heard.
    var pendingCount: Int { pending.count }
}
