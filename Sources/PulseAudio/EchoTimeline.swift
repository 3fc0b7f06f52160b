/// What the speaker plays, on the monotonic clock: samples at the capture rate placed at the time they are
/// heard, so the canceller can take the far end for any stretch of near-end time. A pure value.
///
/// Times are estimates (write time plus PulseAudio's latency) that jitter by a few milliseconds; a block that
/// lands within `snapTolerance` of where the previous one ended is taken to continue it exactly, so the far end
/// stays one continuous signal through a reply and the canceller's filter does not see spurious delay jumps.
struct FarEndTimeline: Sendable {
    private struct Segment {
        var start: Double  // nanoseconds, when samples[head] is heard
        var samples: [Int16]
        /// Samples before this index were heard and are forgotten: reading moves it instead of shifting the
        /// array every 10 ms (a whole reply may be queued); the array is compacted once the dead part is large.
        var head = 0
        var count: Int { samples.count - head }

        mutating func forget(_ n: Int, nanosPerSample: Double) {
            head += n
            start += Double(n) * nanosPerSample
            if head >= 4096 && head * 2 >= samples.count {
                samples.removeFirst(head)
                head = 0
            }
        }
    }

    /// Samples per second.
    let sampleRate: Int
    /// How far (ns) a block may land from the previous one's end and still continue it.
    let snapTolerance: Double
    /// The most audio kept, in samples (older audio is dropped if nobody reads it).
    let capacity: Int
    private var segments: [Segment] = []
    private var nanosPerSample: Double { 1e9 / Double(sampleRate) }

    init(sampleRate: Int, snapToleranceMilliseconds: Int = 20, capacitySeconds: Int = 10) {
        self.sampleRate = sampleRate
        snapTolerance = Double(snapToleranceMilliseconds) * 1e6
        capacity = sampleRate * capacitySeconds
    }

    /// Samples held.
    var count: Int { segments.reduce(0) { $0 + $1.count } }

    private func end(_ s: Segment) -> Double { s.start + Double(s.count) * nanosPerSample }

    /// Adds `samples` heard from `time` (ns) on.
    mutating func append(_ samples: [Int16], heardFrom time: UInt64) {
        guard !samples.isEmpty else { return }
        let t = Double(time)
        if let last = segments.indices.last {
            let lastEnd = end(segments[last])
            if abs(t - lastEnd) <= snapTolerance {
                segments[last].samples.append(contentsOf: samples)
                trimToCapacity()
                return
            }
            if t < lastEnd { cut(from: t) }  // the estimate moved back: what we placed after t is replaced
        }
        segments.append(Segment(start: t, samples: samples))
        trimToCapacity()
    }

    /// Forgets everything heard from `time` (ns) on: PulseAudio dropped it in a flush.
    mutating func flush(at time: UInt64) {
        cut(from: Double(time))
    }

    private mutating func cut(from t: Double) {
        while let last = segments.last {
            if last.start >= t {
                segments.removeLast()
            } else {
                let keep = Int(((t - last.start) / nanosPerSample).rounded(.up))
                if keep < last.count { segments[segments.count - 1].samples.removeLast(last.count - keep) }
                break
            }
        }
    }

    private mutating func trimToCapacity() {
        var excess = count - capacity
        while excess > 0, !segments.isEmpty {
            let n = min(excess, segments[0].count)
            segments[0].forget(n, nanosPerSample: nanosPerSample)
            if segments[0].count == 0 { segments.removeFirst() }
            excess -= n
        }
    }

    /// Fills `out` with what is heard from `time` (ns) on, silence where nothing plays, and forgets everything
    /// heard before `time`. Reads must not go back in time.
    mutating func read(into out: UnsafeMutableBufferPointer<Int16>, from time: UInt64) {
        let t = Double(time)
        for i in out.indices { out[i] = 0 }
        var i = 0
        while i < segments.count {
            let s = segments[i]
            let offset = Int(((t - s.start) / nanosPerSample).rounded())
            // out[k] is samples[head + offset + k].
            let lo = max(0, -offset)
            let hi = min(out.count, s.count - offset)
            if lo < hi {
                s.samples.withUnsafeBufferPointer { src in
                    for k in lo..<hi { out[k] = src[s.head + offset + k] }
                }
            }
            if offset >= s.count {
                segments.remove(at: i)  // wholly in the past
                continue
            }
            if offset > 0 { segments[i].forget(offset, nanosPerSample: nanosPerSample) }
            i += 1
        }
    }
}

/// The capture time of each near-end chunk's first sample, on the monotonic clock. Estimates (read time minus
/// PulseAudio's capture latency) jitter by milliseconds while the stream itself is continuous, and the device's
/// sample clock runs at its own rate: the loopback rig's null sinks delivered 16 042 samples a second of the
/// monotonic clock (2 600 ppm), where a clock that advanced by exactly one chunk and slewed at most 1 000 ppm
/// fell 20–40 ms behind within half a minute, and the echo seemed to move by as much after each pause. So the
/// clock is a second-order tracking loop: it advances by one chunk at the rate it has learned, takes a small
/// part of each estimate's error (jitter averages out over about half a second) and a smaller part into the rate
/// (any steady rate is followed with no lasting error); it re-anchors only on a real jump (a reopened stream,
/// an overrun). A pure value.
struct CaptureClock: Sendable {
    /// How far (ns) an estimate may be from the running clock before the clock re-anchors on it.
    var jumpTolerance: Double = 30e6
    /// The part of an estimate's error the clock takes at once. With 1 ms of jitter (simulated), 0.03 keeps the
    /// clock within 0.2 ms (RMS) of the truth and settles a 5 000 ppm device within 5 s; 0.02 settled it to 2 ms.
    var phaseGain = 0.03
    /// The part of an estimate's error (per chunk of duration) taken into the rate: a quarter of the phase
    /// gain squared, critically damped.
    var rateGain = 0.000225
    /// The furthest the learned rate may be from nominal (1 %).
    var maxRateError = 0.01
    private var next: Double?
    /// Clock nanoseconds per nanosecond of audio.
    private(set) var rate = 1.0

    /// The time of the first sample of a chunk of `duration` seconds whose first sample the stream's latency
    /// puts at `estimate` (ns).
    mutating func chunkStart(estimate: UInt64, duration: Double) -> UInt64 {
        let est = Double(estimate)
        let length = duration * 1e9
        var start = est
        if let n = next, abs(est - n) <= jumpTolerance {
            let error = est - n
            start = n + phaseGain * error
            rate = min(max(rate + rateGain * error / length, 1 - maxRateError), 1 + maxRateError)
        }
        next = start + length * rate
        return UInt64(max(0, start))
    }

    /// Forgets the running clock: the next chunk anchors it again (the learned rate is kept).
    mutating func reset() { next = nil }
}
