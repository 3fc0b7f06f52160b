import CPulse
import Foundation

/// Counters of a playback stream.
public struct PlaybackStats: Sendable, Hashable {
    /// Samples waiting in our buffer.
    public var samplesQueued = 0
    /// Samples handed to PulseAudio since the stream opened.
    public var samplesWritten = 0
    /// Times the server ran dry in the middle of a turn (our buffer was empty past the server's queue).
    public var underruns = 0
    /// `flush()` calls.
    public var flushes = 0
    /// Samples dropped because the buffer was full (never in normal bursts; see `PlaybackBuffer`).
    public var droppedSamples = 0
    /// The most samples our buffer held at once.
    public var highWaterSamples = 0
    /// Times the stream was reopened after its device went away.
    public var reopens = 0
    /// `pa_simple_get_latency` after the last write, in seconds: how long until what was written is heard.
    public var latencySeconds: Double = 0
    /// CPU time used by the playback thread, in seconds.
    public var threadCPUSeconds: Double = 0
    /// With `Options.recordTimings`: nanoseconds from `write()` to `pa_simple_write` returning, per chunk that
    /// started a write.
    public var handInToWrittenNanos: [UInt64] = []
    /// With `Options.recordTimings`: nanoseconds from `flush()` to the server flush returning.
    public var flushNanos: [UInt64] = []
}

/// The speaker: a dedicated thread writing 24 kHz mono s16le to the default sink or a named one, fed by a
/// bounded `PlaybackBuffer` that absorbs network bursts.
///
/// Latency is set explicitly (`tlength`, default 80 ms; PulseAudio's default of ~2 s would make barge-in
/// useless). `flush()` empties our buffer and the server's. The meter level is the level of the audio being
/// heard now (each written block is metered when its latency has elapsed), not of what just arrived.
///
/// Threading: `write`, `flush`, `drain` never block (they take a lock held for microseconds) and may be called
/// from any thread, e.g. a NIO event loop. `onEvent` runs on the playback thread.
public final class PulsePlayback: AudioSink {
    /// How to open the stream.
    public struct Options: Sendable {
        /// The server string (nil: `$PULSE_SERVER` or the default socket).
        public var server: String?
        /// The sink name (nil: the default sink). `--speaker`.
        public var device: String?
        /// The format played.
        public var format: AudioFormat = .playback
        /// The server-side buffer (`tlength`), in milliseconds: the latency from write to speaker, and the
        /// most audio a flush has to throw away on the server.
        public var targetLatencyMilliseconds = 80
        /// How much the server wants before it starts (or restarts after running dry), in milliseconds
        /// (`prebuf`); nil: half the target latency.
        public var prebufferMilliseconds: Int?
        /// The size of each `pa_simple_write`, in milliseconds (also `minreq`): bounds how long the thread is
        /// blocked in a write before it notices a flush.
        public var writeMilliseconds = 10
        /// The most audio our buffer holds, in seconds (3 minutes: a long reply sent all at once still fits).
        public var bufferSeconds: Double = 180
        /// How long to wait for the server before giving up.
        public var connectTimeout: Double = 3
        /// The client name shown by `pactl list`.
        public var appName = "parley"
        /// The stream name shown by `pactl list`.
        public var streamName = "speech"
        /// Silence written before the first audio after open, `flush()` or `drain()`, in milliseconds.
        /// PulseAudio drops the first ~15 ms written to a stream that was flushed or drained (seen on 16.1
        /// through a null sink's monitor); 20 ms of silence absorbs it, so the first syllable of a turn is kept.
        public var restartPaddingMilliseconds = 25
        /// Record per-chunk timings in `stats` (benchmarks).
        public var recordTimings = false
        /// Told every block written (with when it will be heard) and every flush: the far end of the capture
        /// stream's echo canceller.
        public var echoCanceller: AcousticEchoCanceller?

        /// Options with the defaults; `device` nil means the default sink.
        public init(server: String? = nil, device: String? = nil, targetLatencyMilliseconds: Int = 80) {
            self.server = server
            self.device = device
            self.targetLatencyMilliseconds = targetLatencyMilliseconds
        }
    }

    /// State shared with the playback thread; every field is guarded by `cond`.
    private final class Shared: @unchecked Sendable {
        let cond = NSCondition()
        var buffer: PlaybackBuffer
        var flushRequestedAt: UInt64?
        var drainRequested = false
        var stopRequested = false
        var deviceRemoved = false
        var watcher: DeviceWatcher?
        var running = false
        var exited = true
        var idle = true
        var heard: [(at: UInt64, level: AudioLevel)] = []  // written blocks, by when they are heard
        var meter = LevelMeter()
        var stats = PlaybackStats()

        init(buffer: PlaybackBuffer) { self.buffer = buffer }

        func locked<R>(_ body: (Shared) throws -> R) rethrows -> R {
            cond.lock()
            defer { cond.unlock() }
            return try body(self)
        }
    }

    /// The options the stream was created with.
    public var options: Options { worker.options }
    /// The playback format.
    public var format: AudioFormat { options.format }
    // The thread holds the worker, not the PulsePlayback, so dropping the last reference closes the stream.
    private let worker: Worker
    private var shared: Shared { worker.shared }

    /// A playback stream, not yet open. `onEvent` (on the playback thread) reports device changes and the end
    /// of playback after `drain()`.
    public init(options: Options = Options(), onEvent: (@Sendable (AudioEvent) -> Void)? = nil) {
        worker = Worker(options: options, onEvent: onEvent,
                        shared: Shared(buffer: PlaybackBuffer(seconds: options.bufferSeconds, format: options.format)))
    }

    deinit {
        close()
    }

    /// Connects (failing within `connectTimeout` if no server answers) and starts the playback thread.
    public func open() throws {
        let already = shared.locked { $0.running }
        if already { return }
        let stream = try worker.openStream(device: options.device)
        let shared = self.shared
        let watcher = try options.device.map { name throws(PulseAudioError) in
            try DeviceWatcher(server: options.server, kind: .sink, name: name, timeout: options.connectTimeout) {
                shared.locked { s in
                    s.deviceRemoved = true
                    s.cond.broadcast()
                }
            }
        }
        shared.locked {
            $0.running = true
            $0.exited = false
            $0.stopRequested = false
            $0.deviceRemoved = false
            $0.watcher = watcher
        }
        let worker = self.worker
        let thread = Thread {
            worker.run(stream: stream)
        }
        thread.name = "parley-playback"
        thread.start()
    }

    /// Queues samples without blocking. False if the stream is not open.
    @discardableResult
    public func write(_ samples: [Int16]) -> Bool {
        let now = MonotonicClock.now()
        return shared.locked { s in
            guard s.running, !s.stopRequested else { return false }
            guard !samples.isEmpty else { return true }
            s.buffer.append(samples, at: now)
            s.idle = false
            s.cond.broadcast()
            return true
        }
    }

    /// Drops everything queued here and on the server; the speaker is silent within a write block plus a
    /// server round trip (~15 ms). Does not block.
    public func flush() {
        let now = MonotonicClock.now()
        shared.locked { s in
            s.buffer.removeAll()
            s.flushRequestedAt = now
            s.drainRequested = false
            s.heard.removeAll()
            s.meter.update(.silence, at: Double(now) / 1e9)
            s.stats.flushes += 1
            s.cond.broadcast()
        }
    }

    /// Marks the end of a turn: once the buffer is empty the thread drains the server and reports
    /// `playbackFinished`. Does not block.
    public func drain() {
        shared.locked { s in
            s.drainRequested = true
            s.cond.broadcast()
        }
    }

    /// Blocks until playback is idle (drained or flushed) or `timeout` seconds pass. True if idle.
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return shared.locked { s in
            while !s.idle && s.running {
                if !s.cond.wait(until: deadline) { return s.idle }
            }
            return true
        }
    }

    /// The meter reading of what is being heard now.
    public func levels() -> LevelReading {
        let now = MonotonicClock.now()
        return shared.locked { s in
            var consumed = 0
            for h in s.heard {
                if h.at > now { break }
                s.meter.update(h.level, at: Double(h.at) / 1e9)
                consumed += 1
            }
            if consumed > 0 { s.heard.removeFirst(consumed) }
            return s.meter.reading(at: Double(now) / 1e9)
        }
    }

    /// Counters so far.
    public var stats: PlaybackStats {
        shared.locked { s in
            var st = s.stats
            st.samplesQueued = s.buffer.count
            st.droppedSamples = s.buffer.droppedSamples
            st.highWaterSamples = s.buffer.highWaterMark
            return st
        }
    }

    /// Stops the thread, dropping what is queued, and closes the stream.
    public func close() {
        let deadline = Date(timeIntervalSinceNow: 2)
        shared.locked { $0.watcher.take() }?.stop()
        shared.locked { s in
            guard s.running else { return }
            s.stopRequested = true
            s.buffer.removeAll()
            s.cond.broadcast()
            while !s.exited {
                if !s.cond.wait(until: deadline) { break }
            }
            if s.exited { s.running = false }
            s.idle = true
            s.cond.broadcast()
        }
    }

    private enum Step {
        case stop
        case deviceRemoved
        case work(flushAt: UInt64?, drain: Bool, samples: [Int16], enqueuedAt: UInt64?, emptyAfter: Bool)
    }

    /// What the playback thread runs, holding only what it needs.
    private struct Worker: Sendable {
        let options: Options
        let onEvent: (@Sendable (AudioEvent) -> Void)?
        let shared: Shared

        func openStream(device: String?) throws(PulseAudioError) -> SimpleStream {
            _ = try AudioDevices.probe(server: options.server, timeout: options.connectTimeout)
            let f = options.format
            let target = max(10, options.targetLatencyMilliseconds)
            let prebuf = min(target, max(options.writeMilliseconds, options.prebufferMilliseconds ?? target / 2))
            let attr = pa_buffer_attr(maxlength: serverDefault,
                                      tlength: bytes(milliseconds: target, format: f),
                                      prebuf: bytes(milliseconds: prebuf, format: f),
                                      minreq: bytes(milliseconds: min(options.writeMilliseconds, target / 2), format: f),
                                      fragsize: serverDefault)
            return try SimpleStream(server: options.server, appName: options.appName, streamName: options.streamName,
                                    kind: .sink, device: device, format: f, bufferAttributes: attr)
        }

        func run(stream initial: SimpleStream) {
            raiseThreadPriority(name: "parley-playback")
            var link = ReopeningStream(kind: .sink, stream: initial, device: options.device,
                                       open: { d throws(PulseAudioError) in try openStream(device: d) }, onEvent: onEvent)
            let blockSamples = options.format.sampleCount(milliseconds: max(1, options.writeMilliseconds))
            let record = options.recordTimings
            let blockNanos = UInt64(options.format.duration(sampleCount: blockSamples) * 1e9)
            // When the server's queue runs dry if nothing more is written: a write starting later than this
            // (our buffer ran empty mid-turn, or this thread was not scheduled in time) is an underrun.
            var starvedAt: UInt64?
            // While the server's buffer is full, pa_simple_write blocks until it wants more; a flush requested
            // meanwhile would wait for it. So once writes start blocking we wait on our own condition instead
            // (woken at once by flush/close) for about as long as they blocked, and the write itself then
            // barely blocks. `pace` adapts: up while writes still block, down when they find room.
            var pace: UInt64 = 0
            var resumeAt: UInt64 = 0
            let padding = [Int16](repeating: 0, count: options.format.sampleCount(
                milliseconds: max(0, options.restartPaddingMilliseconds)))
            var padNext = true
            defer {
                shared.locked { s in
                    s.exited = true
                    s.cond.broadcast()
                }
            }
            while true {
                if link.stream == nil {
                    let reopened = link.current(isStopped: { shared.locked { $0.stopRequested } }, retry: waitBeforeRetry,
                                                reopened: { shared.locked { $0.stats.reopens += 1 } })
                    if reopened == nil { break }  // closed while reopening
                    padNext = true
                }
                let step: Step = shared.locked { s in
                    while !s.stopRequested && s.flushRequestedAt == nil && !s.deviceRemoved {
                        if s.buffer.isEmpty {
                            if s.drainRequested { break }
                            s.cond.wait()
                        } else {
                            let now = MonotonicClock.now()
                            if now >= resumeAt { break }
                            _ = s.cond.wait(until: Date(timeIntervalSinceNow: Double(resumeAt - now) / 1e9))
                        }
                    }
                    if s.stopRequested { return .stop }
                    if s.deviceRemoved { return .deviceRemoved }
                    let flushAt = s.flushRequestedAt
                    s.flushRequestedAt = nil
                    var drain = false
                    if s.buffer.isEmpty && s.drainRequested {
                        drain = true
                        s.drainRequested = false
                    }
                    let (samples, enqueuedAt) = s.buffer.take(upTo: blockSamples)
                    return .work(flushAt: flushAt, drain: drain, samples: samples, enqueuedAt: enqueuedAt,
                                 emptyAfter: s.buffer.isEmpty)
                }
                if case .stop = step { break }
                if case .deviceRemoved = step {
                    if link.stream != nil, let name = link.device {
                        link.lose(.noSuchDevice(name: name, kind: .sink), detachWatcher: detachWatcher)
                    } else {
                        shared.locked { $0.deviceRemoved = false }
                    }
                    continue
                }
                guard case let .work(flushAt, drain, samples, enqueuedAt, emptyAfter) = step else { break }
                guard let out = link.stream else { break }
                do throws(PulseAudioError) {
                    if let flushAt {
                        try out.flush()
                        starvedAt = nil
                        pace = 0
                        resumeAt = 0
                        padNext = true
                        let done = MonotonicClock.now()
                        options.echoCanceller?.playbackFlushed(at: done)
                        shared.locked { s in
                            if record { s.stats.flushNanos.append(done - flushAt) }
                            if s.buffer.isEmpty {
                                s.idle = true
                                s.cond.broadcast()
                            }
                        }
                    }
                    if !samples.isEmpty {
                        let start = MonotonicClock.now()
                        if let starvedAt, start > starvedAt + 5_000_000 {
                            shared.locked { $0.stats.underruns += 1 }
                        }
                        starvedAt = nil
                        if padNext, !padding.isEmpty {
                            try padding.withUnsafeBufferPointer { b throws(PulseAudioError) in try out.write(b) }
                            tellCanceller(padding, writtenAt: MonotonicClock.now(), latency: out.latency() * 1000)
                        }
                        padNext = false
                        try samples.withUnsafeBufferPointer { b throws(PulseAudioError) in try out.write(b) }
                        let written = MonotonicClock.now()
                        let blocked = written - start
                        if blocked > 2_000_000 {
                            pace = min(pace + blocked - 1_000_000, blockNanos)
                        } else if blocked < 500_000 {
                            pace = pace > 500_000 ? pace - 500_000 : 0
                        }
                        resumeAt = emptyAfter ? 0 : written + pace
                        let latency = out.latency() * 1000
                        tellCanceller(samples, writtenAt: written, latency: latency)
                        let level = samples.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
                        let duration = UInt64(options.format.duration(sampleCount: samples.count) * 1e9)
                        let cpu = MonotonicClock.threadCPUTime()
                        starvedAt = written + latency
                        shared.locked { s in
                            // Heard from (written + latency - duration): latency counts to the block's last sample.
                            s.heard.append((written + latency - min(latency, duration), level))
                            if s.heard.count > 1000 { s.heard.removeFirst(s.heard.count - 1000) }
                            s.stats.samplesWritten += samples.count
                            s.stats.latencySeconds = Double(latency) / 1e9
                            s.stats.threadCPUSeconds = Double(cpu) / 1e9
                            if record, let enqueuedAt, s.stats.handInToWrittenNanos.count < 1_000_000 {
                                s.stats.handInToWrittenNanos.append(written - enqueuedAt)
                            }
                        }
                    }
                    if drain {
                        try out.drain()
                        starvedAt = nil
                        pace = 0
                        resumeAt = 0
                        padNext = true
                        let finished = shared.locked { s -> Bool in
                            s.stats.threadCPUSeconds = Double(MonotonicClock.threadCPUTime()) / 1e9
                            guard s.buffer.isEmpty && !s.stopRequested else { return false }
                            s.idle = true
                            s.cond.broadcast()
                            return true
                        }
                        if finished { onEvent?(.playbackFinished) }
                    }
                } catch {
                    link.lose(error, detachWatcher: detachWatcher)
                }
            }
        }

        /// Hands a written block to the echo canceller: heard from `latency` (ns, to the block's last sample)
        /// after the write returned, minus the block's length.
        func tellCanceller(_ block: [Int16], writtenAt: UInt64, latency: UInt64) {
            guard let canceller = options.echoCanceller else { return }
            let duration = UInt64(options.format.duration(sampleCount: block.count) * 1e9)
            let heard = writtenAt + latency - min(latency, duration)
            block.withUnsafeBufferPointer { canceller.played($0, heardFrom: heard) }
        }

        func detachWatcher() -> DeviceWatcher? {
            shared.locked { s -> DeviceWatcher? in
                s.deviceRemoved = false
                defer { s.watcher = nil }
                return s.watcher
            }
        }

        /// Waits a second before the next reopen attempt, or less if the stream is closed meanwhile.
        func waitBeforeRetry() {
            let deadline = Date(timeIntervalSinceNow: 1)
            shared.locked { s in
                if !s.stopRequested { _ = s.cond.wait(until: deadline) }
            }
        }
    }
}
