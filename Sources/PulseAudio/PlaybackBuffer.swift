/// The queue between the network (which delivers a reply faster than real time, in bursts) and the
/// playback thread (which takes it at real time). A pure value; `PulsePlayback` keeps one behind a lock.
///
/// Bounded: it holds at most `capacity` samples (default 180 s at 24 kHz). Gemini sends a reply at a few
/// times real time, so a long reply of several minutes still fits; beyond the cap the *oldest* audio is
/// dropped and counted, so memory never grows without bound and what is kept stays the newest.
public struct PlaybackBuffer: Sendable {
    /// A run of samples with the time it was handed in.
    struct Chunk: Sendable {
        var samples: [Int16]
        var offset: Int          // samples of this chunk already taken
        var enqueuedAt: UInt64   // the sink's `time`, in nanoseconds, when handed in
    }

    /// The most samples held at once.
    public let capacity: Int
    /// Samples held now.
    public private(set) var count = 0
    /// Samples dropped because the buffer was full.
    public private(set) var droppedSamples = 0
    /// The largest `count` seen (how deep bursts got).
    public private(set) var highWaterMark = 0

    private var chunks: [Chunk] = []
    private var head = 0

    /// A buffer holding at most `capacity` samples.
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// A buffer holding at most `seconds` of `format`.
    public init(seconds: Double, format: AudioFormat = .playback) {
        self.init(capacity: max(1, Int(seconds * Double(format.sampleRate * format.channels))))
    }

    /// Whether no samples are held.
    public var isEmpty: Bool { count == 0 }

    /// Appends samples. Returns the number of (old) samples dropped to make room, usually 0.
    @discardableResult
    public mutating func append(_ samples: [Int16], at time: UInt64 = 0) -> Int {
        guard !samples.isEmpty else { return 0 }
        var incoming = samples
        var dropped = 0
        if incoming.count > capacity {
            dropped += incoming.count - capacity
            incoming = Array(incoming.suffix(capacity))
        }
        let excess = count + incoming.count - capacity
        if excess > 0 { dropped += discard(excess) }
        chunks.append(Chunk(samples: incoming, offset: 0, enqueuedAt: time))
        count += incoming.count
        highWaterMark = max(highWaterMark, count)
        droppedSamples += dropped
        return dropped
    }

    /// Takes up to `maxCount` samples from the front. `enqueuedAt` is the hand-in time of the chunk the
    /// first sample came from, if that sample starts its chunk (for hand-in → write latency), else nil.
    public mutating func take(upTo maxCount: Int) -> (samples: [Int16], enqueuedAt: UInt64?) {
        var out: [Int16] = []
        out.reserveCapacity(min(maxCount, count))
        var firstEnqueued: UInt64?
        var first = true
        while out.count < maxCount, head < chunks.count {
            let c = chunks[head]
            if first, c.offset == 0 { firstEnqueued = c.enqueuedAt }
            first = false
            let n = min(maxCount - out.count, c.samples.count - c.offset)
            out.append(contentsOf: c.samples[c.offset..<c.offset + n])
            if c.offset + n == c.samples.count {
                chunks[head] = Chunk(samples: [], offset: 0, enqueuedAt: 0)
                head += 1
            } else {
                chunks[head].offset += n
            }
        }
        count -= out.count
        compact()
        return (out, firstEnqueued)
    }

    /// Empties the buffer (barge-in).
    public mutating func removeAll() {
        chunks.removeAll(keepingCapacity: false)
        head = 0
        count = 0
    }

    private mutating func discard(_ n: Int) -> Int {
        var left = n
        while left > 0, head < chunks.count {
            let avail = chunks[head].samples.count - chunks[head].offset
            if avail <= left {
                left -= avail
                chunks[head] = Chunk(samples: [], offset: 0, enqueuedAt: 0)
                head += 1
            } else {
                chunks[head].offset += left
                left = 0
            }
        }
        let removed = n - left
        count -= removed
        compact()
        return removed
    }

    private mutating func compact() {
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32, head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
