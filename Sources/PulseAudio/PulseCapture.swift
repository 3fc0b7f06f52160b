import CPulse
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
    /// `pa_simple_get_latency` of the capture stream at the last chunk, in seconds.
    public var latencySeconds: Double = 0
}

/// The microphone: a dedicated thread blocking in `pa_simple_read` for chunks of 16 kHz mono s16le
/// (20 ms, `fragsize` 640 bytes by default), from the default source or a named one.
///
/// Threading: the consumer, `onLevel` and `onEvent` run on the capture thread; keep them short (hand the
/// chunk to the network send path, post an event). `setGate`, `levels`, `stats` and `close` may be called from
/// any thread.
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
        public var echoCanceller: AcousticEchoCanceller?

        /// Options with the defaults; `device` nil means the default source.
        public init(server: String? = nil, device: String? = nil) {
            self.server = server
            self.device = device
        }
    }

    private struct State {
        var gate = CaptureGate()
        var meter = LevelMeter()
        var stats = CaptureStats()
        var stopRequested = false
        var running = false
        var deviceRemoved = false
        var watcher: DeviceWatcher?
    }

    /// The options the stream was created with.
    public var options: Options { worker.options }
    /// The capture format.
    public var format: AudioFormat { options.format }
    // The thread holds the worker, not the PulseCapture, so dropping the last reference closes the stream.
    private let worker: Worker
    private var state: LockedState<State> { worker.state }
    private var wake: DispatchSemaphore { worker.wake }
    private var exited: DispatchSemaphore { worker.exited }

    /// A capture stream, not yet open. `onLevel` receives the level of every chunk read (gate open or not),
    /// `onEvent` device changes; both on the capture thread.
    public init(options: Options = Options(), onLevel: (@Sendable (AudioLevel) -> Void)? = nil,
                onEvent: (@Sendable (AudioEvent) -> Void)? = nil) {
        worker = Worker(options: options, onEvent: onEvent, onLevel: onLevel, state: LockedState(State()),
                        wake: DispatchSemaphore(value: 0), exited: DispatchSemaphore(value: 0))
    }

    deinit {
        close()
    }

    /// Connects (failing within `connectTimeout` if no server answers) and starts the capture thread.
    public func open(consumer: @escaping @Sendable (AudioChunk) -> Void) throws {
        let already = state.withLock { $0.running }
        if already { return }
        let stream = try worker.openStream(device: options.device)
        let watcher = try options.device.map { name throws(PulseAudioError) in
            try DeviceWatcher(server: options.server, kind: .source, name: name, timeout: options.connectTimeout) {
                [state] in state.withLock { $0.deviceRemoved = true }
            }
        }
        state.withLock {
            $0.running = true
            $0.stopRequested = false
            $0.deviceRemoved = false
            $0.watcher = watcher
        }
        let worker = self.worker
        let thread = Thread {
            worker.run(stream: stream, consumer: consumer)
        }
        thread.name = "parley-capture"
        thread.start()
    }

    /// Opens or closes the gate. Closing delivers the chunk in flight (marked `endsGate`).
    public func setGate(open: Bool) {
        state.withLock { $0.gate.set(open: open) }
    }

    /// Whether the gate is open.
    public var isGateOpen: Bool { state.withLock { $0.gate.isOpen } }

    /// The meter reading of what the microphone hears now.
    public func levels() -> LevelReading {
        let now = Double(MonotonicClock.now()) / 1e9
        return state.withLock { $0.meter.reading(at: now) }
    }

    /// Counters so far.
    public var stats: CaptureStats { state.withLock { $0.stats } }

    /// Stops the thread (within one chunk) and closes the stream.
    public func close() {
        let wasRunning = state.withLock { s -> Bool in
            let r = s.running
            s.stopRequested = true
            return r
        }
        state.withLock { $0.watcher.take() }?.stop()
        guard wasRunning else { return }
        wake.signal()
        // One chunk plus slack; a server that froze mid-read cannot hold us forever.
        if exited.wait(timeout: .now() + 2) == .success {
            state.withLock { $0.running = false }
        }
    }

    /// What the capture thread runs, holding only what it needs.
    private struct Worker: Sendable {
        let options: Options
        let onEvent: (@Sendable (AudioEvent) -> Void)?
        let onLevel: (@Sendable (AudioLevel) -> Void)?
        let state: LockedState<State>
        let wake: DispatchSemaphore
        let exited: DispatchSemaphore

        func openStream(device: String?) throws(PulseAudioError) -> SimpleStream {
            _ = try AudioDevices.probe(server: options.server, timeout: options.connectTimeout)
            let chunkBytes = bytes(milliseconds: options.chunkMilliseconds, format: options.format)
            let attr = pa_buffer_attr(maxlength: serverDefault, tlength: serverDefault, prebuf: serverDefault,
                                      minreq: serverDefault, fragsize: chunkBytes)
            return try SimpleStream(server: options.server, appName: options.appName, streamName: options.streamName,
                                    kind: .source, device: device, format: options.format, bufferAttributes: attr)
        }

        func run(stream initial: SimpleStream, consumer: @Sendable (AudioChunk) -> Void) {
            raiseThreadPriority(name: "parley-capture")
            var link = ReopeningStream(kind: .source, stream: initial, device: options.device,
                                       open: { d throws(PulseAudioError) in try openStream(device: d) }, onEvent: onEvent)
            let count = options.format.sampleCount(milliseconds: options.chunkMilliseconds)
            var samples = [Int16](repeating: 0, count: count)
            var sequence: UInt64 = 0
            defer { exited.signal() }
            let stopped = { state.withLock { $0.stopRequested } }
            while !stopped() {
                guard let s = link.current(isStopped: stopped, retry: { _ = wake.wait(timeout: .now() + 1) },
                                           reopened: { state.withLock { $0.stats.reopens += 1 } }) else { break }
                do {
                    try samples.withUnsafeMutableBufferPointer { b throws(PulseAudioError) in try s.read(into: b) }
                } catch {
                    link.lose(error, detachWatcher: detachWatcher)
                    continue
                }
                let timestamp = MonotonicClock.now()
                if let canceller = options.echoCanceller {
                    // The chunk's last sample reached the mic `latency` before the read returned.
                    let back = s.latency() * 1000 + UInt64(options.format.duration(sampleCount: samples.count) * 1e9)
                    canceller.process(&samples, capturedFrom: timestamp > back ? timestamp - back : 0)
                }
                let level = samples.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
                let cpu = MonotonicClock.threadCPUTime()
                let (deliver, endsGate, removed) = state.withLock { st in
                    st.meter.update(level, at: Double(timestamp) / 1e9)
                    st.stats.chunksRead += 1
                    st.stats.threadCPUSeconds = Double(cpu) / 1e9
                    let d = st.gate.chunkCaptured()
                    if d.deliver { st.stats.chunksDelivered += 1 }
                    return (d.deliver, d.endsGate, st.deviceRemoved)
                }
                if deliver {
                    consumer(AudioChunk(samples: samples, timestamp: timestamp, level: level, sequence: sequence,
                                        endsGate: endsGate))
                }
                onLevel?(level)
                sequence += 1
                if removed, let name = link.device {
                    // The server moved the stream (or will kill it); reopen on the default ourselves.
                    link.lose(.noSuchDevice(name: name, kind: .source), detachWatcher: detachWatcher)
                    continue
                }
                if sequence % 50 == 0 {
                    let latency = Double(s.latency()) / 1e6
                    state.withLock { $0.stats.latencySeconds = latency }
                }
            }
        }

        func detachWatcher() -> DeviceWatcher? {
            state.withLock { s -> DeviceWatcher? in
                s.deviceRemoved = false
                return s.watcher.take()
            }
        }
    }
}
