import CPulse
import ParleyTime
import Foundation

/// Counters of a playback stream.
public struct PlaybackStats: Sendable, Hashable {
    /// Samples waiting in our buffer.
    public var samplesQueued = 0
    /// Samples handed to PulseAudio since the stream opened.
    public var samplesWritten = 0
    /// Blocks handed to PulseAudio since the stream opened (each a `pa_stream_write`).
    public var blocksWritten = 0
    /// Of those, the blocks of audio `write()` handed over on the caller's thread, a start's padding not counted
    /// (the rest went by the audio thread's top-up timer, a drain, or a restart).
    public var blocksWrittenByCaller = 0
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
    /// Times the server asked for more audio (a REQUEST: a wake-up of the audio thread, which tops the server's
    /// queue up on its own timer and needs none; `PlaybackBufferAttributes`).
    public var serverRequests = 0
    /// How long until what was written is heard, in seconds, at the last write (from the server's last timing report).
    public var latencySeconds: Double = 0
    /// CPU time used by the playback thread, in seconds.
    public var threadCPUSeconds: Double = 0
    /// With `Options.recordTimings`: nanoseconds from `write()` to `pa_stream_write` (the block handed to the server), per chunk that
    /// started a write.
    public var handInToWrittenNanos: [UInt64] = []
    /// With `Options.recordTimings`: nanoseconds from `flush()` to the server flush returning.
    public var flushNanos: [UInt64] = []
}

/// The speaker: a playback stream of 24 kHz mono s16le to the default sink or a named one, on the shared
/// `PulseLoop`, fed by a bounded `PlaybackBuffer` that absorbs network bursts.
///
/// Reply audio is handed to the server on the caller's thread as it arrives (no thread of ours in between)
/// while the server holds less than half of `aheadMilliseconds`, the start of every reply among it, keeping the
/// server's queue at most `aheadMilliseconds` deep; a timer on the audio thread tops it up from our buffer, at
/// least `writeMilliseconds` at a time. The server starts playing as soon as `prebuf` (10 ms) is queued, and the
/// sink's latency follows `tlength`, so the first sample of a reply is heard within a few milliseconds of
/// arriving. `flush()` empties our buffer and the server's. The meter level is the level of the audio being
/// heard now (each written block is metered 20 ms at a time as its latency elapses, `PlaybackMeter`), not of
/// what just arrived.
///
/// Threading: `write`, `flush`, `drain` never block on the device (they take the loop lock for microseconds) and
/// may be called from any thread, e.g. a NIO event loop. `onEvent` runs on the audio thread.
public final class PulsePlayback: AudioSink {
    /// How to open the stream.
    public struct Options: Sendable {
        /// The server string (nil: `$PULSE_SERVER` or the default socket).
        public var server: String?
        /// The sink name (nil: the default sink). `--speaker`.
        public var device: String?
        /// The format played.
        public var format: AudioFormat = .playback
        /// The server-side target latency (`tlength`), in milliseconds: the sink is asked for about this much
        /// latency. Small is quick to be heard; the server's queue is kept deeper than this (`aheadMilliseconds`)
        /// so a late thread never starves it.
        public var targetLatencyMilliseconds = 20
        /// How much the server wants before it starts (or restarts after running dry), in milliseconds
        /// (`prebuf`); nil: `writeMilliseconds`.
        public var prebufferMilliseconds: Int?
        /// `minreq`, in milliseconds (on PipeWire's server at least
        /// `PlaybackBufferAttributes.pipeWireRequestMilliseconds`), and the least a top-up hands the server.
        public var writeMilliseconds = 10
        /// How much audio is handed to the server ahead of what is heard, in milliseconds: the cushion
        /// against a late audio thread. A flush throws it away at once, so it costs nothing at barge-in.
        public var aheadMilliseconds = 400
        /// The most audio our buffer holds, in seconds (3 minutes: a long reply sent all at once still fits).
        public var bufferSeconds: Double = 180
        /// How long to wait for the server before giving up.
        public var connectTimeout: Double = 3
        /// The client name shown by `pactl list`.
        public var appName = "parley"
        /// The stream name shown by `pactl list`.
        public var streamName = "speech"
        /// Silence written before the first audio after open, `flush()` or a drained turn, in milliseconds
        /// (none by default). Recorded on a null sink's monitor by
        /// `PulseDaemonTests.testTheStartOfAReplyAfterAnIdleStreamIsHeard`: both servers play the whole reply
        /// with none (on PipeWire the start is written at the server's read index), its first sample 1–3 ms
        /// (PulseAudio) or up to a graph cycle (PipeWire) after the write, and padding only delays it by its
        /// length. (Written after the last block instead, PipeWire lost up to a graph cycle of a reply after a
        /// drained turn, and a cycle of silence in front of it was what it lost: 2–4 ms with 10 ms cycles, up to
        /// 20 ms with the 21 ms cycles it runs in a virtual machine.)
        public var restartPaddingMilliseconds = 0
        /// Told, with the loop locked, when the first sample after open, a flush or a drained turn will be heard
        /// (nanoseconds on `time`, usually a few milliseconds ahead): the latency the user feels.
        public var onStartHeard: (@Sendable (UInt64) -> Void)?
        /// The clock write, flush and "heard at" stamps and the meter read (the app's one `TimeSource`).
        public var time: TimeSource = .monotonic
        /// Record per-chunk timings in `stats` (benchmarks).
        public var recordTimings = false
        /// Told every block written (with when it will be heard) and every flush: the far end of the capture
        /// stream's echo canceller.
        public var canceller: WebRTCCanceller?

        /// Options with the defaults; `device` nil means the default sink.
        public init(server: String? = nil, device: String? = nil, targetLatencyMilliseconds: Int = 20) {
            self.server = server
            self.device = device
            self.targetLatencyMilliseconds = targetLatencyMilliseconds
        }
    }

    /// The options the stream was created with.
    public let options: Options
    /// The playback format.
    public var format: AudioFormat { options.format }
    private let core: Core

    /// A playback stream, not yet open. `onEvent` (on the audio thread) reports device changes and the end
    /// of playback after `drain()`.
    public init(options: Options = Options(), onEvent: (@Sendable (AudioEvent) -> Void)? = nil) {
        self.options = options
        core = Core(options: options, onEvent: onEvent)
    }

    deinit {
        close()
    }

    /// Connects (failing within `connectTimeout` if no server answers).
    public func open() throws {
        try core.open()
    }

    /// Queues samples without blocking, handing what fits to the server at once. False if the stream is not
    /// open.
    @discardableResult
    public func write(_ samples: [Int16]) -> Bool {
        let now = options.time.nanoseconds()
        return core.locked { c in c.write(samples, at: now) }
    }

    /// Drops everything queued here and on the server; the speaker is silent within a server round trip.
    /// Does not block.
    public func flush() {
        let now = options.time.nanoseconds()
        core.locked { c in c.flush(at: now) }
    }

    /// Marks the end of a turn: once everything queued is played the server reports it and `onEvent` gets
    /// `playbackFinished`. Does not block.
    public func drain() {
        core.locked { c in c.drain() }
    }

    /// Changes the server's buffer (`tlength`) while open, and for reopened streams: the echo canceller
    /// wants more than push-to-talk does. Does not block; a no-op if it is already `milliseconds`.
    public func setTargetLatency(milliseconds: Int) {
        core.locked { c in c.setTarget(milliseconds: milliseconds) }
    }

    /// The server buffer asked for now (`tlength`), in milliseconds.
    public var targetLatencyMilliseconds: Int { core.locked { c in c.targetMilliseconds } }

    /// The server buffer (`tlength`) the server granted, in milliseconds; nil while not connected.
    public var serverBufferMilliseconds: Int? { core.locked { c in c.grantedMilliseconds } }

    /// Blocks until playback is idle (drained or flushed) or `timeout` seconds pass. True if idle.
    public func waitUntilIdle(timeout: Double) -> Bool {
        core.idle.waitUntilIdle(timeout: timeout)
    }

    /// The meter reading of what is being heard now.
    public func levels() -> LevelReading {
        let now = options.time.nanoseconds()
        return core.locked { c in c.levels(at: now) }
    }

    /// Counters so far.
    public var stats: PlaybackStats { core.locked { c in c.currentStats } }

    /// Whether the server is PipeWire's PulseAudio server; false until the stream has connected once.
    public var serverIsPipeWire: Bool { core.locked { c in c.serverIsPipeWire } }

    /// Stops playback, dropping what is queued, and closes the stream.
    public func close() { core.close() }

    /// Idle or not, for `waitUntilIdle` from any thread (its own condition: waiters never hold the loop lock).
    final class IdleFlag: @unchecked Sendable {
        private let cond = NSCondition()
        private var idle = true
        private var open = false

        func set(idle: Bool) {
            cond.lock()
            defer { cond.unlock() }
            guard idle != self.idle else { return }
            self.idle = idle
            cond.broadcast()
        }

        func set(open: Bool) {
            cond.lock()
            defer { cond.unlock() }
            self.open = open
            if !open { idle = true }
            cond.broadcast()
        }

        func waitUntilIdle(timeout: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            cond.lock()
            defer { cond.unlock() }
            while !idle && open {
                if !cond.wait(until: deadline) { return idle }
            }
            return true
        }
    }

    /// The stream's state; everything but `idle` is guarded by the loop lock.
    private final class Core: PulseStreamRole, @unchecked Sendable {
        let options: Options
        let onEvent: (@Sendable (AudioEvent) -> Void)?
        let idle = IdleFlag()
        private var buffer: PlaybackBuffer
        private var running = false
        private var link: PulseStream?
        var serverIsPipeWire: Bool { link?.loop.serverIsPipeWire ?? false }
        private let lock = NSLock()
        private var meter: PlaybackMeter
        private var stats = PlaybackStats()
        private var drainRequested = false
        private var drainGeneration: Int?
        private var generation = 0
        private var flushRequestedAt: UInt64?
        /// The server ran dry while the turn was still going: the next block written counts an underrun.
        private var starved = false
        /// Audio was handed to the server since the last flush or completed drain (a turn is playing):
        /// only then is running dry an underrun. (PipeWire reports one after a drain has completed.)
        private var playing = false
        /// Samples handed to the server while its timing was unknown (bounds how far we write blind).
        private var writtenBlind = 0
        private var padNext = true
        /// Where the stream stood (its write index, bytes) when the playing turn's first block was written; nil
        /// while unknown.
        private var turnStart: Int64?
        /// The next start finds the server's queue empty (flushed, new, or drained with nothing written since
        /// the drain was asked for): only then is it written at the read index. A block handed over while a drain
        /// is pending clears it: the drain's completion may have been on its way before the block, so the server
        /// may still hold it.
        private var startsOnEmptyQueue = true
        /// When what was written so far will all have been heard (estimate, ns).
        private var heardUntil: UInt64 = 0
        private var timer: OpaquePointer?
        private let aheadNanos: UInt64
        /// The least a top-up hands the server, in samples (`writeMilliseconds`), unless less waits.
        private let minimumTopUp: Int
        /// `tlength` in milliseconds (options, then `setTarget`).
        private(set) var targetMilliseconds: Int

        init(options: Options, onEvent: (@Sendable (AudioEvent) -> Void)?) {
            self.options = options
            self.onEvent = onEvent
            buffer = PlaybackBuffer(seconds: options.bufferSeconds, format: options.format)
            meter = PlaybackMeter(format: options.format)
            aheadNanos = UInt64(max(options.aheadMilliseconds, options.targetLatencyMilliseconds)) * 1_000_000
            minimumTopUp = max(1, options.format.sampleCount(milliseconds: options.writeMilliseconds))
            targetMilliseconds = max(5, options.targetLatencyMilliseconds)
        }

        func locked<R>(_ body: (Core) -> R) -> R {
            if let loop = lock.withLock({ link?.loop }) { return loop.locked { body(self) } }
            return lock.withLock { body(self) }
        }

        func open() throws(PulseAudioError) {
            if lock.withLock({ link != nil }) { return }
            let loop = try PulseLoop.shared(server: options.server, timeout: options.connectTimeout)
            let stream = PulseStream(loop: loop, role: self, kind: .sink, name: options.streamName, format: options.format,
                                     onEvent: onEvent)
            try loop.locked { () throws(PulseAudioError) in
                lock.withLock { link = stream }
                running = true
                do throws(PulseAudioError) {
                    try stream.open(device: options.device, timeout: options.connectTimeout)
                } catch {
                    running = false
                    lock.withLock { link = nil }
                    throw error
                }
            }
            idle.set(open: true)
        }

        func close() {
            guard let link = lock.withLock({ self.link }) else { return }
            link.loop.locked {
                running = false
                cancelTimer()
                cancelRestartTimer()
                link.close()
                buffer.removeAll()
                meter.forgetPending()
                forgetUnplaced()
                timingAnswersDue = 0
                lock.withLock { self.link = nil }
            }
            idle.set(open: false)
        }

        var currentStats: PlaybackStats {
            var st = stats
            st.samplesQueued = buffer.count
            st.droppedSamples = buffer.droppedSamples
            st.highWaterSamples = buffer.highWaterMark
            st.reopens = link?.reopens ?? 0
            return st
        }

        func levels(at now: UInt64) -> LevelReading { meter.reading(at: now) }

        // MARK: - Commands (loop locked)

        func write(_ samples: [Int16], at now: UInt64) -> Bool {
            guard running else { return false }
            guard !samples.isEmpty else { return true }
            buffer.append(samples, at: now)
            idle.set(idle: false)
            // While the server will still hold a quarter of `aheadMilliseconds` when the top-up timer (armed
            // whenever our buffer holds audio, half of it apart) comes, the timer hands this over on the audio
            // thread. Written here, every reply frame of a burst was a sliver of a block from the network thread,
            // and libpulse woke the audio thread to send each one.
            if timer != nil, let due = timerDue, let s = readyStream, let queued = queuedNanos(s),
               queued >= (due > now ? due - now : 0) + aheadNanos / 4 { return true }
            pump(byCaller: true)
            return true
        }

        func flush(at now: UInt64) {
            buffer.removeAll()
            drainRequested = false
            drainGeneration = nil
            generation += 1
            starved = false
            playing = false
            meter.silence(at: now)
            stats.flushes += 1
            padNext = true
            startsOnEmptyQueue = true
            heardUntil = 0
            forgetUnplaced()
            cancelTimer()
            if let s = readyStream, let op = pa_stream_flush(s, { _, _, userdata in
                guard let userdata else { return }
                Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().flushed()
            }, userdata) {
                flushRequestedAt = now
                pa_operation_unref(op)
            } else {
                idle.set(idle: true)
            }
        }

        func drain() {
            drainRequested = true
            pump()
        }

        // MARK: - Feeding the server

        private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        private var readyStream: OpaquePointer? {
            guard let s = link?.stream, pa_stream_get_state(s) == PA_STREAM_READY else { return nil }
            return s
        }

        /// How long until what was written so far is all heard, in ns, from the server's last timing report:
        /// what it held then (its write index, which counts our writes since, less its read index, plus the
        /// sink's latency) less the report's age, as if it had played all along since. Nil until the server's
        /// timing is known (the stream is new, or a flush made it stale). The report's `playing` flag is not
        /// asked: PipeWire never sets it, and PulseAudio's report for a start is often taken just before the sink
        /// takes the new audio (the report then waits in our loop for up to 20 ms, placing the start that much
        /// late). libpulse's own figure (`pa_stream_get_latency`, interpolated) went negative or 10–25 ms off
        /// after each start, on PulseAudio and PipeWire alike.
        private func queuedNanos(_ s: OpaquePointer) -> UInt64? {
            guard let t = pa_stream_get_timing_info(s)?.pointee, t.write_index_corrupt == 0, t.read_index_corrupt == 0,
                  let spec = pa_stream_get_sample_spec(s) else { return nil }
            var reported = t.timestamp
            let held = Int64(pa_bytes_to_usec(UInt64(max(0, t.write_index - t.read_index)), spec)) + Int64(t.sink_usec)
            return UInt64(max(0, held - Int64(pa_timeval_age(&reported)))) * 1000
        }

        /// Hands the server what fits in `aheadMilliseconds`, arms the top-up timer if more waits, and starts
        /// a drain once everything is handed over after `drain()`.
        private func pump(byCaller: Bool = false) {
            guard running, let s = readyStream else { return }
            let format = options.format
            while !buffer.isEmpty {
                var budget: Int
                if let queued = queuedNanos(s) {
                    writtenBlind = 0
                    budget = queued >= aheadNanos ? 0 : format.sampleCount(nanoseconds: aheadNanos - queued)
                } else {
                    budget = format.sampleCount(nanoseconds: aheadNanos) - writtenBlind
                }
                // At least `writeMilliseconds` (or all that waits): the room the server makes as it plays is a few
                // samples between two looks at its timing, and filling it wrote blocks of a few samples, each a
                // write, a memblock, a wake-up of the audio thread and a placement on the canceller's far end.
                guard budget > 0, budget >= min(minimumTopUp, buffer.count) else { break }
                let (samples, enqueuedAt) = buffer.take(upTo: budget)
                // A start, or the first block after the stream ran dry mid-reply: placed from fresh timing.
                let starting = padNext, anchoring = padNext || starved
                if starved {
                    starved = false
                    stats.underruns += 1
                }
                if anchoring { awaitingTiming = true }
                // On PipeWire a start writes at the server's read index: after a drain its server has read on past
                // the last sample written (its reader counts the cycle that ran dry), and a block written after the
                // last one would begin that far in the past, its first milliseconds never played (up to a graph
                // cycle: 21 ms in a VM). Only on an empty queue (`startsOnEmptyQueue`). PulseAudio's read
                // index waits at the last sample (the stream prebuffers again): there a start follows the last
                // block, as before.
                let pipeWire = link?.loop.serverIsPipeWire ?? false
                var seek = starting && pipeWire && startsOnEmptyQueue ? PA_SEEK_RELATIVE_ON_READ : PA_SEEK_RELATIVE
                if starting { turnStart = writeIndex(s) }
                if padNext, case let padding = restartPadding, !padding.isEmpty {
                    put(padding, on: s, enqueuedAt: nil, seek: seek)
                    seek = PA_SEEK_RELATIVE
                }
                padNext = false
                put(samples, on: s, enqueuedAt: enqueuedAt, starts: starting, seek: seek)
                if byCaller { stats.blocksWrittenByCaller += 1 }
                if anchoring { askForFreshTiming(s) }
                if queuedNanos(s) == nil { writtenBlind += samples.count }
            }
            if !buffer.isEmpty {
                armTimer()
            } else if drainRequested, drainGeneration == nil {
                drainRequested = false
                drainGeneration = generation
                startsOnEmptyQueue = true
                if let op = pa_stream_drain(s, { _, success, userdata in
                    guard let userdata else { return }
                    Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().drained(success != 0)
                }, userdata) {
                    pa_operation_unref(op)
                } else {
                    drainGeneration = nil
                }
            }
        }

        /// Hands a block to the server and places it (when it is heard: the canceller's far end, the meter), or
        /// keeps it to place once the server's timing is fresh. False if the write failed.
        @discardableResult
        private func put(_ samples: [Int16], on s: OpaquePointer, enqueuedAt: UInt64?, starts: Bool = false,
                         seek: pa_seek_mode_t = PA_SEEK_RELATIVE) -> Bool {
            let wrote = samples.withUnsafeBytes { b in
                pa_stream_write(s, b.baseAddress, b.count, nil, 0, seek)
            }
            guard wrote == 0 else { return false }
            playing = true
            if drainGeneration != nil { startsOnEmptyQueue = false }
            let written = options.time.nanoseconds()
            if options.recordTimings, let enqueuedAt, stats.handInToWrittenNanos.count < 1_000_000 {
                stats.handInToWrittenNanos.append(written - enqueuedAt)
            }
            stats.samplesWritten += samples.count
            stats.blocksWritten += 1
            if awaitingTiming {
                unplaced.append((samples, starts))
                return true
            }
            // Latency counts to the block's last sample; the blocks of a playing stream follow each other.
            let duration = UInt64(options.format.duration(sampleCount: samples.count) * 1e9)
            let target = UInt64(targetMilliseconds) * 1_000_000
            let heardEnd = queuedNanos(s).map { written + $0 } ?? max(written + target, heardUntil) + duration
            place(samples, heardFrom: heardEnd - min(heardEnd, duration), starts: starts)
            stats.latencySeconds = Double(heardEnd - written) / 1e9
            return true
        }

        /// The canceller's far end, the meter and the start's report for a block first heard at `heardFrom`.
        private func place(_ samples: [Int16], heardFrom: UInt64, starts: Bool) {
            heardUntil = heardFrom + UInt64(options.format.duration(sampleCount: samples.count) * 1e9)
            if let canceller = options.canceller {
                samples.withUnsafeBufferPointer { canceller.played($0, heardFrom: heardFrom) }
            }
            samples.withUnsafeBufferPointer { meter.place($0, heardFrom: heardFrom) }
            if starts { options.onStartHeard?(heardFrom) }
        }

        /// A stream that ran dry (or was flushed, or is new) holds the server's timing from before, up to 1.5 s
        /// old (libpulse's automatic updates): the first blocks after a start were placed 0–25 ms off, differently
        /// each time, and the far end jumped when a fresh update came mid-reply. The blocks of a start wait for a
        /// timing update asked for right after them (it arrives within a loop cycle, 1–20 ms) and are placed back
        /// to back from it; a block of a playing stream is placed from the last update as it is written.
        private var unplaced: [(samples: [Int16], starts: Bool)] = []
        /// A start waits for a timing update (otherwise blocks are placed as they are written).
        private var awaitingTiming = false
        /// Timing updates asked for and not answered yet. Answers come in order: only the last one was taken
        /// after the blocks of the start that waits (one asked before a flush would place them from before it).
        private var timingAnswersDue = 0

        /// Asks for the server's timing after the start's first blocks (the request follows them on the connection).
        private func askForFreshTiming(_ s: OpaquePointer) {
            timingAnswersDue += 1
            guard let op = pa_stream_update_timing_info(s, { s, success, userdata in
                guard let userdata, let s else { return }
                Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().timingUpdated(s, success: success != 0)
            }, userdata) else {
                timingAnswersDue -= 1
                placeUnplaced(heardEnd: nil)
                return
            }
            pa_operation_unref(op)
        }

        private func timingUpdated(_ s: OpaquePointer, success: Bool) {
            guard s == link?.stream else { return }
            timingAnswersDue = max(0, timingAnswersDue - 1)
            guard awaitingTiming, timingAnswersDue == 0 else { return }
            let now = options.time.nanoseconds()
            let queued = success ? queuedNanos(s) : nil
            placeUnplaced(heardEnd: queued.map { now + $0 })
            if let queued { stats.latencySeconds = Double(queued) / 1e9 }
        }

        /// Places the blocks written since the start back to back, the last ending at `heardEnd` (from fresh
        /// timing), or from the target latency if no fresh timing came.
        private func placeUnplaced(heardEnd: UInt64?) {
            let blocks = unplaced
            unplaced.removeAll()
            awaitingTiming = false
            let total = blocks.reduce(0) { $0 + $1.samples.count }
            let duration = UInt64(options.format.duration(sampleCount: total) * 1e9)
            let end = heardEnd ?? options.time.nanoseconds() + UInt64(targetMilliseconds) * 1_000_000
            var from = end - min(end, duration)
            for b in blocks {
                place(b.samples, heardFrom: from, starts: b.starts)
                from += UInt64(options.format.duration(sampleCount: b.samples.count) * 1e9)
            }
        }

        private func forgetUnplaced() {
            unplaced.removeAll()
            awaitingTiming = false
        }

        private func flushed() {
            let done = options.time.nanoseconds()
            options.canceller?.playbackFlushed(at: done)
            if options.recordTimings, let at = flushRequestedAt { stats.flushNanos.append(done - at) }
            flushRequestedAt = nil
            if buffer.isEmpty { idle.set(idle: true) }
            restartIfWanted()
        }

        private func drained(_ success: Bool) {
            guard drainGeneration == generation else { return }  // a flush came in between
            drainGeneration = nil
            stats.threadCPUSeconds = Double(ThreadCPUTime.nanoseconds()) / 1e9
            padNext = true
            guard running, buffer.isEmpty else {
                pump()
                return
            }
            starved = false
            playing = false
            idle.set(idle: true)
            onEvent?(.playbackFinished)
            restartIfWanted()
        }

        private func underflow() {
            // Running dry after everything was handed over for a drain is the end of the turn, not an underrun.
            guard playing && drainGeneration == nil && !drainRequested else { return }
            // PipeWire reports a drained turn's end a graph cycle after the drain completes, sometimes after the
            // next turn's first block: where it ran dry (the underflow's index) is then at or just past where
            // this turn started (its reader reads on by up to a cycle), not inside this turn.
            if let s = link?.stream, let start = turnStart, case let at = pa_stream_get_underflow_index(s), at >= 0,
               at <= start + cycleBytes(s) { return }
            starved = true
        }

        /// The stream's write index in bytes, as libpulse counts it, if it knows it.
        private func writeIndex(_ s: OpaquePointer) -> Int64? {
            guard let t = pa_stream_get_timing_info(s)?.pointee, t.write_index_corrupt == 0 else { return nil }
            return t.write_index
        }

        /// The server's cycle (its sink latency as configured) in bytes of this stream; 0 while unknown.
        private func cycleBytes(_ s: OpaquePointer) -> Int64 {
            guard let t = pa_stream_get_timing_info(s)?.pointee, let spec = pa_stream_get_sample_spec(s) else { return 0 }
            return Int64(pa_usec_to_bytes(t.configured_sink_usec, spec))
        }

        /// When the top-up timer fires (`options.time` ns), while it is armed.
        private var timerDue: UInt64?

        /// The top-up timer, half of `aheadMilliseconds` after the last top-up: each hands the server up to
        /// half of it (200 ms of a 400 ms cushion, one wake-up of the audio thread five times a second while a
        /// long reply waits here; 100 ms ten times before), and the server never holds less than a quarter of
        /// it when the timer comes.
        private func armTimer() {
            guard timer == nil, let loop = link?.loop else { return }
            timerDue = options.time.nanoseconds() + aheadNanos / 2
            timer = loop.addTimer(after: pa_usec_t(aheadNanos / 2_000), userdata: userdata) { _, _, _, userdata in
                guard let userdata else { return }
                let core = Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue()
                core.cancelTimer()
                core.stats.threadCPUSeconds = Double(ThreadCPUTime.nanoseconds()) / 1e9
                core.pump()
            }
        }

        private func cancelTimer() {
            link?.loop.freeTimer(&timer)
            timerDue = nil
        }

        // MARK: - PulseStreamRole

        func connect(_ stream: OpaquePointer, device: String?) -> Int32 {
            var attr = bufferAttributes()
            pa_stream_set_underflow_callback(stream, { _, userdata in
                guard let userdata else { return }
                Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().underflow()
            }, userdata)
            pa_stream_set_write_callback(stream, { _, _, userdata in
                guard let userdata else { return }
                Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().stats.serverRequests += 1
            }, userdata)
            var flags = PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
            if device != nil { flags |= PA_STREAM_DONT_MOVE.rawValue }  // gone means gone: reopen on the default
            return pa_stream_connect_playback(stream, device, &attr, pa_stream_flags_t(flags), nil, nil)
        }

        private func bufferAttributes() -> pa_buffer_attr {
            let a = PlaybackBufferAttributes(targetMilliseconds: targetMilliseconds,
                                             writeMilliseconds: options.writeMilliseconds,
                                             prebufferMilliseconds: options.prebufferMilliseconds,
                                             format: options.format, pipeWire: serverIsPipeWire)
            return pa_buffer_attr(maxlength: serverDefault, tlength: a.tlength, prebuf: a.prebuf, minreq: a.minreq,
                                  fragsize: serverDefault)
        }

        var grantedMilliseconds: Int? {
            guard let s = readyStream, let attr = pa_stream_get_buffer_attr(s) else { return nil }
            return Int((options.format.duration(sampleCount: Int(attr.pointee.tlength) / 2) * 1000).rounded())
        }

        /// The buffer changed while audio was playing: restart the stream once playback is idle.
        private var restartWhenIdle = false

        func setTarget(milliseconds: Int) {
            let target = max(5, milliseconds)
            guard target != targetMilliseconds else { return }
            targetMilliseconds = target
            // `pa_stream_set_buffer_attr` is honoured differently from a connect (PulseAudio grants 40 ms of an
            // 80 ms request on an open stream, 50 at connect): a new stream gets what a fresh start would.
            restartWhenIdle = true
            restartIfWanted()
        }

        private var isIdle: Bool { buffer.isEmpty && !playing && drainGeneration == nil && !drainRequested }

        private var restartTimer: OpaquePointer?

        /// Restarts the stream for a changed buffer a quarter second after playback went idle: a drain
        /// completes when the server has taken the last sample, not when the sink has played it, and
        /// disconnecting at once cuts the reply's last ~10 ms.
        private func restartIfWanted() {
            guard restartWhenIdle, isIdle, restartTimer == nil, let loop = link?.loop else { return }
            restartTimer = loop.addTimer(after: 250_000, userdata: userdata) { _, _, _, userdata in
                guard let userdata else { return }
                let core = Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue()
                core.cancelRestartTimer()
                guard core.restartWhenIdle, core.isIdle else { return }  // a reply came first: after it, then
                core.restartWhenIdle = false
                core.link?.restart()
            }
        }

        /// The silence written before a reply that starts the stream again (`Options.restartPaddingMilliseconds`).
        private var restartPadding: [Int16] {
            [Int16](repeating: 0, count: options.format.sampleCount(milliseconds: max(0, options.restartPaddingMilliseconds)))
        }

        private func cancelRestartTimer() { link?.loop.freeTimer(&restartTimer) }

        func ready(_ stream: OpaquePointer) {
            timingAnswersDue = 0  // a new stream: nothing asked of it yet
            writtenBlind = 0
            padNext = true
            startsOnEmptyQueue = true
            pump()
        }

        func gone() {
            cancelTimer()
            forgetUnplaced()
            timingAnswersDue = 0
            drainGeneration = nil
            starved = false
            playing = false
            meter.forgetPending()
        }
    }
}
