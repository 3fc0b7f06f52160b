import CPulse
import ParleyTime
import Dispatch
import Foundation

/// Counters of a capture stream.
public struct CaptureStats: Sendable, Hashable {
    /// Chunks read from the device.
    public var chunksRead: UInt64 = 0
    /// Chunks handed to the consumer.
    public var chunksDelivered: UInt64 = 0
    /// Times the stream was reopened after its device went away.
    public var reopens = 0
    /// CPU time used by the capture thread, in seconds.
    public var threadCPUSeconds: Double = 0
    /// `pa_stream_get_latency` of the capture stream at the last chunk, in seconds.
    public var latencySeconds: Double = 0
    /// Times the audio thread woke with something to do, since its server connection opened (the thread is
    /// shared with the playback stream of the same server).
    public var loopWakeups = 0
    /// Holds of the server's data that ended before anything of the server's had come (a timed-out wait, then
    /// another for the data), since the connection opened.
    public var holdsEndedEmpty = 0
}

/// The microphone: a record stream of 16 kHz mono s16le in chunks of 20 ms (`fragsize` 640 bytes by
/// default) from the default source or a named one, on the shared `PulseLoop`.
///
/// `suspend()` corks the stream (the server stops sending; nothing wakes parley while the mic is closed in
/// push-to-talk) and `resume()` uncorks it.
///
/// Threading: the consumer, `onLevel` and `onEvent` run on the audio thread with the loop locked; keep them
/// short (hand the chunk to the network send path, post an event). `setGate`, `levels`, `stats`, `suspend`,
/// `resume` and `close` may be called from any thread.
public final class PulseCapture: AudioSource {
    /// How to open the stream.
    public struct Options: Sendable {
        /// The server string (nil: `$PULSE_SERVER` or the default socket).
        public var server: String?
        /// The source name (nil: the default source). `--mic`.
        public var device: String?
        /// Chunk length in milliseconds (20: 640 bytes at 16 kHz mono).
        public var chunkMilliseconds: Int = 20
        /// The format captured.
        public var format: AudioFormat = .capture
        /// How long to wait for the server before giving up.
        public var connectTimeout: Double = 3
        /// The client and stream names shown by `pactl list`.
        public var appName = "parley"
        /// The stream name shown by `pactl list`.
        public var streamName = "microphone"
        /// Removes what the speaker plays from each chunk before it is metered and delivered (the same
        /// canceller must be given to the playback stream).
        public var canceller: WebRTCCanceller?
        /// The clock chunk timestamps and the meter read (the app's one `TimeSource`).
        public var time: TimeSource = .monotonic

        /// Options with the defaults; `device` nil means the default source.
        public init(server: String? = nil, device: String? = nil) {
            self.server = server
            self.device = device
        }
    }

    /// The options the stream was created with.
    public let options: Options
    /// The capture format.
    public var format: AudioFormat { options.format }
    private let core: Core

    /// A capture stream, not yet open. `onLevel` receives the level of every chunk read (gate open or not),
    /// `onEvent` device changes; both on the audio thread.
    public init(options: Options = Options(), onLevel: (@Sendable (AudioLevel) -> Void)? = nil,
                onEvent: (@Sendable (AudioEvent) -> Void)? = nil) {
        self.options = options
        core = Core(options: options, onLevel: onLevel, onEvent: onEvent)
    }

    deinit {
        close()
    }

    /// Connects (failing within `connectTimeout` if no server answers) and starts capturing.
    public func open(consumer: @escaping @Sendable (AudioChunk) -> Void) throws {
        try core.open(consumer: consumer)
    }

    /// Opens or closes the gate. Closing delivers the chunk in flight (marked `endsGate`).
    public func setGate(open: Bool) {
        core.locked { $0.gate.set(open: open) }
    }

    /// Whether the gate is open.
    public var isGateOpen: Bool { core.locked { $0.gate.isOpen } }

    /// Stops the flow from the server once the chunk in flight has been delivered (if the gate just closed):
    /// nothing is read, metered or delivered until `resume()`.
    public func suspend() { core.setSuspended(true) }

    /// Starts the flow again after `suspend()`: chunks follow within a server round trip and one chunk.
    public func resume() { core.setSuspended(false) }

    /// The meter reading of what the microphone hears now.
    public func levels() -> LevelReading {
        let now = options.time.now()
        return core.locked { $0.meter.reading(at: now) }
    }

    /// Counters so far.
    public var stats: CaptureStats {
        core.locked { c in
            var s = c.stats
            s.reopens = c.reopens
            s.loopWakeups = c.loopWakeups
            s.holdsEndedEmpty = c.holdsEndedEmpty
            return s
        }
    }

    /// Stops capturing and closes the stream. Nothing is delivered after it returns.
    public func close() { core.close() }

    /// How early before the rest of a chunk can have arrived the loop wakes for data again: pieces arrive a
    /// little early or late, and waking early costs one more wake-up where waking late would delay the chunk.
    static let holdMarginNanoseconds: UInt64 = 500_000

    /// Whether to wait for the server's next piece without a hold: its pieces, as last seen arriving, are at
    /// least as long as what the chunk lacks (samples), so that piece completes the chunk, and waiting for it is
    /// one wake-up where a hold adds one. On both servers: PipeWire's pulse server sends 20 ms pieces once a graph
    /// cycle (21.3 ms in a virtual machine, with a piece 10.6 ms after it every eighth cycle), and a hold for
    /// one ended 1–3 ms before it came (the earliest arrival seen): a timed-out `ppoll`, then the wait for the
    /// piece (0.36–0.75 holds a chunk ended empty in `PulseDaemonTests`, none unheld). Unheld, the idle audio
    /// thread took 0.32 % of a core against 0.46 held (5 runs each, 20 s, A B A B; its sleeps 80 a second
    /// against 88: most are PipeWire's, which writes a piece's header and its data apart).
    static func waitsForNextPieceUnheld(missing: Int, lastFreshPiece: Int) -> Bool {
        lastFreshPiece > 0 && lastFreshPiece >= missing
    }

    /// How long after the earliest arrival of the piece that completes the chunk a late hold ends. With small
    /// pieces (another recorder on the source), a hold that ends before that arrival wakes the loop twice a
    /// chunk, the hold's end and then the piece (2.00 a chunk beside a 2 ms recorder on PulseAudio); ended half a
    /// millisecond after it, 1.14–1.18 (`PulseDaemonTests`), the chunk read up to that much later.
    static let lateHoldNanoseconds: UInt64 = 500_000

    /// One chunk in this many is held to the margin before its earliest arrival (the others to
    /// `lateHoldNanoseconds` after it), so its completing piece is read as it arrives: the estimate stays
    /// anchored, and one that has become late (the server's pieces now come earlier) is noticed and reset.
    static let earlyHoldEvery: UInt64 = 8

    /// Until when the loop holds the server's data, for the earliest arrival of what completes the chunk:
    /// the margin before it, or with `late` `lateHoldNanoseconds` after it; 0 (no hold) while the arrival is
    /// unknown.
    static func holdDeadline(arrival: UInt64?, late: Bool = false) -> UInt64 {
        guard let arrival else { return 0 }
        if late { return arrival + lateHoldNanoseconds }
        guard arrival > holdMarginNanoseconds else { return 0 }
        return arrival - holdMarginNanoseconds
    }

    /// The stream's state and the work done on each chunk, on the audio thread (all under the loop lock).
    private final class Core: PulseStreamRole, @unchecked Sendable {
        let options: Options
        let onLevel: (@Sendable (AudioLevel) -> Void)?
        let onEvent: (@Sendable (AudioEvent) -> Void)?
        var gate = CaptureGate()
        var meter = LevelMeter()
        var stats = CaptureStats()
        private var link: PulseStream?
        private var consumer: (@Sendable (AudioChunk) -> Void)?
        private var chunk: [Int16]
        private var filled = 0
        private var sequence: UInt64 = 0
        private var suspendRequested = false
        private var corked = false
        /// Samples read since the stream became ready or was uncorked, and when they arrive.
        private var received = 0
        private var arrivals: ArrivalEstimate
        /// Samples the last read brought that had just arrived (not kept waiting by a hold): the size of the
        /// server's pieces. 0 while unknown.
        private var lastFreshPiece = 0
        /// Whether the hold the loop is in (or last ended) was a late one (`PulseCapture.lateHoldNanoseconds`): a
        /// chunk completed by data that waited through it was meant to.
        private var heldLate = false

        init(options: Options, onLevel: (@Sendable (AudioLevel) -> Void)?, onEvent: (@Sendable (AudioEvent) -> Void)?) {
            self.options = options
            self.onLevel = onLevel
            self.onEvent = onEvent
            chunk = [Int16](repeating: 0, count: options.format.sampleCount(milliseconds: options.chunkMilliseconds))
            arrivals = ArrivalEstimate(format: options.format)
        }

        /// A lock for callers before `open` too (no loop yet: the values are not shared).
        private let idle = NSLock()

        func locked<R>(_ body: (Core) -> R) -> R {
            if let loop = idle.withLock({ link?.loop }) { return loop.locked { body(self) } }
            return idle.withLock { body(self) }
        }

        /// Times the stream was reopened after a loss.
        var reopens: Int { link?.reopens ?? 0 }

        /// The audio thread's wake-ups so far.
        var loopWakeups: Int { link?.loop.loopWakeups ?? 0 }
        /// The audio thread's holds that ended before the server's data came, so far.
        var holdsEndedEmpty: Int { link?.loop.holdsEndedEmpty ?? 0 }

        func open(consumer: @escaping @Sendable (AudioChunk) -> Void) throws(PulseAudioError) {
            if idle.withLock({ link != nil }) { return }
            let loop = try PulseLoop.shared(server: options.server, timeout: options.connectTimeout)
            let stream = PulseStream(loop: loop, role: self, kind: .source, name: options.streamName,
                                     format: options.format, onEvent: onEvent)
            try loop.locked { () throws(PulseAudioError) in
                self.consumer = consumer
                idle.withLock { link = stream }
                do throws(PulseAudioError) {
                    try stream.open(device: options.device, timeout: options.connectTimeout)
                } catch {
                    idle.withLock { link = nil }
                    self.consumer = nil
                    throw error
                }
            }
        }

        func close() {
            guard let link = idle.withLock({ self.link }) else { return }
            link.loop.locked {
                link.close()
                consumer = nil
                idle.withLock { self.link = nil }
            }
        }

        func setSuspended(_ on: Bool) {
            locked { c in
                c.suspendRequested = on
                if !on { c.cork(false) } else if !c.gate.isOpen && !c.deliveringLastChunk { c.cork(true) }
            }
        }

        /// Whether the gate closed mid-chunk and that chunk is still to be delivered.
        private var deliveringLastChunk: Bool {
            var g = gate
            return g.chunkCaptured().endsGate
        }

        private func cork(_ on: Bool) {
            guard on != corked else { return }
            corked = on
            if on { filled = 0 }
            restartArrivals()
            if let s = link?.stream, pa_stream_get_state(s) == PA_STREAM_READY { send(cork: on, to: s) }
        }

        private func send(cork on: Bool, to s: OpaquePointer) {
            if let op = pa_stream_cork(s, on ? 1 : 0, nil, nil) { pa_operation_unref(op) }
        }

        // MARK: - PulseStreamRole

        func connect(_ stream: OpaquePointer, device: String?) -> Int32 {
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            pa_stream_set_read_callback(stream, { s, readable, userdata in
                guard let s, let userdata else { return }
                Unmanaged<Core>.fromOpaque(userdata).takeUnretainedValue().readable(s, bytes: readable)
            }, userdata)
            var attr = pa_buffer_attr(maxlength: serverDefault, tlength: serverDefault, prebuf: serverDefault,
                                      minreq: serverDefault,
                                      fragsize: bytes(milliseconds: options.chunkMilliseconds, format: options.format))
            var flags = PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
            if device != nil { flags |= PA_STREAM_DONT_MOVE.rawValue }  // gone means gone: reopen on the default
            if corked { flags |= PA_STREAM_START_CORKED.rawValue }
            return pa_stream_connect_record(stream, device, &attr, pa_stream_flags_t(flags))
        }

        func ready(_ stream: OpaquePointer) {
            filled = 0
            restartArrivals()
            if corked { send(cork: true, to: stream) }  // corked while it was opening
        }

        func gone() {
            filled = 0
            restartArrivals()
        }

        private func restartArrivals() {
            received = 0
            lastFreshPiece = 0
            heldLate = false
            arrivals.reset()
        }

        // MARK: - Reading

        /// The server's data: `bytes` is what libpulse holds for the stream (it calls once a piece, with all
        /// that waits), read a piece at a time. Not asked again with `pa_stream_readable_size`: each libpulse
        /// call checks for a fork with a `getpid` system call, and while another program records the source
        /// with a short latency the pieces come 400 times a second (`holdData`).
        private func readable(_ s: OpaquePointer, bytes: Int) {
            var data: UnsafeRawPointer?
            var length = 0
            let woke = TimeSource.monotonic.nanoseconds()
            let chunksBefore = stats.chunksRead
            let receivedBefore = received
            pa_stream_ref(s)  // the consumer may close the stream
            defer { pa_stream_unref(s) }
            var left = bytes
            while left > 0, s == link?.stream {
                guard pa_stream_peek(s, &data, &length) == 0, length > 0 else { return }
                left -= length
                received += length / 2
                if let data {
                    take(UnsafeRawBufferPointer(start: data, count: length))
                } else {
                    take(hole: length)  // a hole in the stream: silence
                }
                pa_stream_drop(s)
            }
            if s == link?.stream, let loop = link?.loop {
                holdUntilTheChunkCanComplete(loop, wokeAt: woke, completed: stats.chunksRead > chunksBefore,
                                             piece: received - receivedBefore)
            }
        }

        /// Lets the loop sleep through the server's pieces until the rest of the chunk can have arrived, less
        /// the margin. A chunk completed by data that waited through a hold may have waited too long (the piece
        /// came early, or the server's latency fell): the estimate starts again, from the next fresh read.
        ///
        /// When the server's pieces are as long as what the chunk still lacks (PulseAudio sends the 20 ms
        /// `fragsize` asks for when no other recorder is on the source), the next piece completes the chunk and
        /// nothing is held: a hold would end before that piece (the chunk's boundary falls inside it) and cost a
        /// wake-up of its own, two a chunk where one does (`waitsForNextPieceUnheld`).
        private func holdUntilTheChunkCanComplete(_ loop: PulseLoop, wokeAt: UInt64, completed: Bool, piece: Int) {
            if !loop.dataWaitedThroughHold {
                arrivals.read(upTo: received, at: wokeAt)
                lastFreshPiece = piece
            } else if completed && !heldLate {
                arrivals.reset()
            }
            let missing = chunk.count - filled
            if PulseCapture.waitsForNextPieceUnheld(missing: missing, lastFreshPiece: lastFreshPiece) {
                // Only the chunk's last piece is to come. Until it has, the hold this wake-up ended stays
                // marked late: that piece, most often read in the same dispatch, must not drop the estimate.
                if completed { heldLate = false }
                loop.holdData(until: 0)
                return
            }
            // Small pieces on PulseAudio: 7 chunks in 8 are held until just after the piece that completes them
            // can arrive (that piece's end, which may reach past the chunk's last sample; the server's pieces are
            // as long as the last fresh read's), one wake-up a chunk; the eighth wakes before it, as every chunk
            // did, and reads it fresh. Not on PipeWire, untried there: its pieces on these machines are never
            // shorter than the chunk (a virtual machine's graph cycle is at least 1,024 samples).
            let late = !loop.serverIsPipeWire && lastFreshPiece > 0 && stats.chunksRead % PulseCapture.earlyHoldEvery != 0
            let reach = late ? (missing + lastFreshPiece - 1) / lastFreshPiece * lastFreshPiece : missing
            let completion = arrivals.arrival(ofSample: received + reach)
            heldLate = completion != nil && late
            loop.holdData(until: PulseCapture.holdDeadline(arrival: completion, late: heldLate))
        }

        private func take(_ bytes: UnsafeRawBufferPointer) {
            var offset = 0
            let sampleCount = bytes.count / 2
            while offset < sampleCount {
                let n = min(chunk.count - filled, sampleCount - offset)
                chunk.withUnsafeMutableBytes { dst in
                    dst.baseAddress!.advanced(by: filled * 2).copyMemory(from: bytes.baseAddress!.advanced(by: offset * 2), byteCount: n * 2)
                }
                filled += n
                offset += n
                if filled == chunk.count { chunkCaptured() }
            }
        }

        private func take(hole length: Int) {
            var left = length / 2
            while left > 0 {
                let n = min(chunk.count - filled, left)
                for k in filled..<(filled + n) { chunk[k] = 0 }
                filled += n
                left -= n
                if filled == chunk.count { chunkCaptured() }
            }
        }

        private func latencyNanos() -> UInt64 {
            guard let s = link?.stream else { return 0 }
            var usec: pa_usec_t = 0
            var negative: Int32 = 0
            return pa_stream_get_latency(s, &usec, &negative) == 0 && negative == 0 ? usec * 1000 : 0
        }

        /// A whole chunk: cancel the echo, meter it, pass it through the gate.
        private func chunkCaptured() {
            filled = 0
            var samples = chunk
            let timestamp = options.time.nanoseconds()
            if let canceller = options.canceller {
                // The chunk's last sample reached the mic `latency` before it was read.
                let back = latencyNanos() + UInt64(options.format.duration(sampleCount: samples.count) * 1e9)
                canceller.process(&samples, capturedFrom: timestamp > back ? timestamp - back : 0)
            }
            let level = samples.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
            meter.update(level, at: Double(timestamp) / 1e9)
            stats.chunksRead += 1
            let d = gate.chunkCaptured()
            if d.deliver {
                stats.chunksDelivered += 1
                consumer?(AudioChunk(samples: samples, timestamp: timestamp, level: level, sequence: sequence,
                                     endsGate: d.endsGate))
            }
            onLevel?(level)
            sequence += 1
            if sequence % 50 == 0 {
                stats.latencySeconds = Double(latencyNanos()) / 1e9
                stats.threadCPUSeconds = Double(ThreadCPUTime.nanoseconds()) / 1e9
            }
            if suspendRequested && !gate.isOpen { cork(true) }
        }
    }
}
