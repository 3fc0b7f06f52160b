import Dispatch
import Foundation
import ParleyTime
import PulseAudio
import ParleyLock

/// An `AudioSource` without a device: for tests: feed it samples and chunks come out synchronously through
/// the gate, or `realTime: true` plays its samples (or silence) at real time.
public final class FakeAudioSource: AudioSource {
    private struct State {
        var gate = CaptureGate()
        var meter = LevelMeter()
        var consumer: (@Sendable (AudioChunk) -> Void)?
        var sequence: UInt64 = 0
        var pending: [Int16] = []
        var stop = false
        var running = false
    }

    /// The chunk format.
    public let format: AudioFormat
    /// Samples per chunk.
    public let chunkSamples: Int
    private let realTime: Bool
    /// The clock chunk timestamps and the meter read.
    private let time: TimeSource
    private let script: [Int16]
    private let loop: Bool
    /// WebRTC's canceller on the capture path, as `PulseCapture` runs it (the sink must be given it too).
    private let canceller: WebRTCCanceller?
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    /// A fake microphone. With `realTime`, a thread delivers `samples` (then silence, or `samples` again if
    /// `loop`) in chunks at real time; otherwise chunks come only from `feed`.
    /// With a `canceller`, each chunk has its echo removed before it is metered and gated, as on PulseAudio.
    public init(format: AudioFormat = .capture, chunkMilliseconds: Int = 20, samples: [Int16] = [],
                realTime: Bool = false, loop: Bool = false, time: TimeSource = .monotonic,
                canceller: WebRTCCanceller? = nil) {
        self.format = format
        self.canceller = canceller
        self.time = time
        chunkSamples = max(1, format.sampleCount(milliseconds: chunkMilliseconds))
        self.realTime = realTime
        script = samples
        self.loop = loop
    }

    deinit { close() }

    /// Starts delivering to `consumer`.
    public func open(consumer: @escaping @Sendable (AudioChunk) -> Void) throws {
        let start = state.withLock { s -> Bool in
            s.consumer = consumer
            s.stop = false
            let start = realTime && !s.running
            if start { s.running = true }
            return start
        }
        guard start else { return }
        let thread = Thread { [self] in self.runRealTime() }
        thread.name = "parley-fake-capture"
        thread.start()
    }

    /// Captures `samples` as if heard at `time` (nanoseconds; nil: now on the source's clock); complete chunks
    /// go through the gate to the consumer on the caller's thread. Returns the chunks delivered.
    @discardableResult
    public func feed(_ samples: [Int16], at given: UInt64? = nil) -> [AudioChunk] {
        let time = given ?? self.time.nanoseconds()
        var delivered: [AudioChunk] = []
        let (consumer, chunks) = state.withLock { s -> ((@Sendable (AudioChunk) -> Void)?, [AudioChunk]) in
            s.pending.append(contentsOf: samples)
            var out: [AudioChunk] = []
            while s.pending.count >= chunkSamples {
                var chunk = Array(s.pending.prefix(chunkSamples))
                s.pending.removeFirst(chunkSamples)
                if let canceller {
                    let length = UInt64(format.duration(sampleCount: chunk.count) * 1e9)
                    canceller.process(&chunk, capturedFrom: time > length ? time - length : 0)
                }
                let level = chunk.withUnsafeBufferPointer { AudioLevel(measuring: $0) }  // as PulseCapture does
                s.meter.update(level, at: Double(time) / 1e9)
                let d = s.gate.chunkCaptured()
                if d.deliver {
                    out.append(AudioChunk(samples: chunk, timestamp: time, level: level, sequence: s.sequence,
                                          endsGate: d.endsGate))
                }
                s.sequence += 1
            }
            return (s.consumer, out)
        }
        for c in chunks {
            consumer?(c)
            delivered.append(c)
        }
        return delivered
    }

    /// Opens or closes the gate.
    public func setGate(open: Bool) { state.withLock { $0.gate.set(open: open) } }

    /// Whether the gate is open.
    public var isGateOpen: Bool { state.withLock { $0.gate.isOpen } }

    /// The meter reading of the last chunks fed.
    public func levels() -> LevelReading {
        let now = time.now()
        return state.withLock { $0.meter.reading(at: now) }
    }

    /// Stops delivering.
    public func close() {
        let wasRunning = state.withLock { s -> Bool in
            s.stop = true
            s.consumer = nil
            let r = s.running
            s.running = false
            return r
        }
        if wasRunning {
            wake.signal()
            _ = exited.wait(timeout: .now() + 2)
        }
    }

    private func runRealTime() {
        defer { exited.signal() }
        let period = UInt64(format.duration(sampleCount: chunkSamples) * 1e9)
        // Paced on the real clock whatever `time` is: this thread stands in for a sound card.
        var next = TimeSource.monotonic.nanoseconds() + period
        var position = 0
        while !state.withLock({ $0.stop }) {
            let now = TimeSource.monotonic.nanoseconds()
            if next > now {
                // A pacing timer, woken early only by close().
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(next - now)))
                continue
            }
            next += period
            var chunk = [Int16](repeating: 0, count: chunkSamples)
            if !script.isEmpty {
                for i in 0..<chunkSamples {
                    if position >= script.count {
                        if loop { position = 0 } else { break }
                    }
                    chunk[i] = script[position]
                    position += 1
                }
            }
            feed(chunk)
        }
    }
}

/// An `AudioSink` without a device: remembers what it was given. `flush` drops what is pending, `drain`
/// "plays" it at once (moving it to `played`) and reports `playbackFinished` on the caller's thread.
public final class FakeAudioSink: AudioSink {
    private struct State {
        var pending: [Int16] = []
        var played: [Int16] = []
        var flushes = 0
        var drains = 0
        var open = false
        var meter = LevelMeter()
        var samplesWritten = 0
        /// When the last sample written would have been heard (ns), for the canceller's far end.
        var heardUntil: UInt64 = 0
    }

    /// The format written.
    public let format: AudioFormat
    private let onEvent: (@Sendable (AudioEvent) -> Void)?
    private let state = Locked(State())
    /// The clock the meter reads.
    private let time: TimeSource
    /// The far end of an echo canceller, fed as `PulsePlayback` feeds it.
    private let canceller: WebRTCCanceller?
    /// How far ahead of the clock a block is heard (the server buffer a `PulsePlayback` keeps).
    private let latencyNanoseconds: UInt64

    /// A fake speaker. With a `canceller`, each write is reported to it as heard `latencyMilliseconds` after
    /// the clock's now (or after the writes before it, back to back) and each flush as a flush.
    public init(format: AudioFormat = .playback, time: TimeSource = .monotonic,
                canceller: WebRTCCanceller? = nil, latencyMilliseconds: Int = 80,
                onEvent: (@Sendable (AudioEvent) -> Void)? = nil) {
        self.format = format
        self.time = time
        self.canceller = canceller
        latencyNanoseconds = UInt64(max(0, latencyMilliseconds)) * 1_000_000
        self.onEvent = onEvent
    }

    /// Marks the sink open.
    public func open() throws { state.withLock { $0.open = true } }

    /// Queues samples. False if not open.
    @discardableResult
    public func write(_ samples: [Int16]) -> Bool {
        let now = time.now()
        let nanos = time.nanoseconds()
        return state.withLock { s in
            guard s.open else { return false }
            s.pending.append(contentsOf: samples)
            s.samplesWritten += samples.count
            s.meter.update(samples.withUnsafeBufferPointer { AudioLevel(measuring: $0) }, at: now)  // as PulsePlayback does
            if let canceller {
                let heardFrom = max(nanos + latencyNanoseconds, s.heardUntil)
                s.heardUntil = heardFrom + UInt64(format.duration(sampleCount: samples.count) * 1e9)
                samples.withUnsafeBufferPointer { canceller.played($0, heardFrom: heardFrom) }
            }
            return true
        }
    }

    /// Drops what is pending.
    public func flush() {
        let now = time.now()
        let nanos = time.nanoseconds()
        state.withLock { s in
            s.pending.removeAll()
            s.flushes += 1
            s.meter.update(.silence, at: now)
            s.heardUntil = 0
        }
        canceller?.playbackFlushed(at: nanos)
    }

    /// Plays what is pending at once and reports `playbackFinished`.
    public func drain() {
        state.withLock { s in
            s.played.append(contentsOf: s.pending)
            s.pending.removeAll()
            s.drains += 1
        }
        onEvent?(.playbackFinished)
    }

    /// Always idle: draining is instantaneous.
    public func waitUntilIdle(timeout: Double) -> Bool { true }

    /// The level of the last write.
    public func levels() -> LevelReading {
        let now = time.now()
        return state.withLock { $0.meter.reading(at: now) }
    }

    /// Marks the sink closed and drops what is pending.
    public func close() {
        state.withLock { s in
            s.open = false
            s.pending.removeAll()
        }
    }

    /// Samples written and not yet drained or flushed.
    public var pending: [Int16] { state.withLock { $0.pending } }
    /// Samples drained ("played").
    public var played: [Int16] { state.withLock { $0.played } }
    /// Samples written so far (flushed or not).
    public var samplesWritten: Int { state.withLock { $0.samplesWritten } }
    /// `flush()` calls so far.
    public var flushCount: Int { state.withLock { $0.flushes } }
    /// `drain()` calls so far.
    public var drainCount: Int { state.withLock { $0.drains } }
}
