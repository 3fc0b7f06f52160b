/// Where captured audio comes from: a PulseAudio source, or a fake one in tests and `--no-audio` runs.
///
/// Threading: `open`'s consumer is called on the source's own thread, once per chunk, while the gate is open
/// (plus the chunk in flight when it closes). Everything else may be called from any thread.
public protocol AudioSource: AnyObject, Sendable {
    /// The format of the chunks (16 kHz mono for Gemini Live).
    var format: AudioFormat { get }
    /// Starts capturing; `consumer` receives the chunks that pass the gate.
    func open(consumer: @escaping @Sendable (AudioChunk) -> Void) throws
    /// Opens or closes the gate. Closing delivers the chunk in flight, marked `endsGate`.
    func setGate(open: Bool)
    /// Whether the gate is open.
    var isGateOpen: Bool { get }
    /// The meter reading of what the source hears now (whether or not the gate is open). Cheap.
    func levels() -> LevelReading
    /// Stops capturing (after the chunk that ends the gate, if one is in flight) until `resume()`: the mic
    /// costs nothing while it is closed. The meter reads silence meanwhile.
    func suspend()
    /// Captures again after `suspend()`.
    func resume()
    /// Stops capturing and waits for the thread to finish. Safe to call more than once.
    func close()
}

extension AudioSource {
    public func suspend() {}
    public func resume() {}
}

/// Where audio to play goes: a PulseAudio sink, or a fake one in tests and `--no-audio` runs.
///
/// Threading: every method may be called from any thread; `write` and `flush` never block on the device.
public protocol AudioSink: AnyObject, Sendable {
    /// The format `write` takes (24 kHz mono for Gemini Live).
    var format: AudioFormat { get }
    /// Opens the device and starts the playback thread.
    func open() throws
    /// Queues samples for playback without blocking. False if the sink is closed.
    @discardableResult func write(_ samples: [Int16]) -> Bool
    /// Drops everything queued, ours and the server's (barge-in): silent within ~30 ms.
    func flush()
    /// Marks the end of a turn: play out what is queued, then report `playbackFinished`. Does not block.
    func drain()
    /// Blocks until everything queued has been played (after `drain()`), or `timeout` seconds. True if idle.
    func waitUntilIdle(timeout: Double) -> Bool
    /// The meter reading of what is being played now. Cheap.
    func levels() -> LevelReading
    /// Stops playback (dropping what is queued) and waits for the thread. Safe to call more than once.
    func close()
    /// Changes how much the server buffers ahead of the speaker, in milliseconds (the latency floor).
    func setTargetLatency(milliseconds: Int)
    /// Whether the sound server is PipeWire's PulseAudio server (`pipewire-pulse`); false until known.
    var serverIsPipeWire: Bool { get }
}

extension AudioSink {
    /// Sinks without a server buffer ignore it.
    public func setTargetLatency(milliseconds: Int) {}
    /// Sinks without a server are not PipeWire.
    public var serverIsPipeWire: Bool { false }
}
