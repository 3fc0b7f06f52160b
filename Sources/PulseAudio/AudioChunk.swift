/// 20 ms (by default) of captured audio: 16 kHz mono s16 samples, when they were read, and their level.
public struct AudioChunk: Sendable {
    /// The samples, mono s16 at the capture rate.
    public var samples: [Int16]
    /// The source's `TimeSource`, in nanoseconds, when this chunk was read from the stream (its last sample was just captured).
    public var timestamp: UInt64
    /// RMS, peak and clipping of the samples.
    public var level: AudioLevel
    /// Counts chunks read since the stream opened (delivered or not), from 0.
    public var sequence: UInt64
    /// True on the last chunk delivered before the gate closed: the consumer can end the turn after it.
    public var endsGate: Bool

    /// Creates a chunk from its parts.
    public init(samples: [Int16], timestamp: UInt64, level: AudioLevel, sequence: UInt64, endsGate: Bool = false) {
        self.samples = samples
        self.timestamp = timestamp
        self.level = level
        self.sequence = sequence
        self.endsGate = endsGate
    }

    /// The samples as little-endian bytes (the wire format of Gemini Live's `audio/pcm;rate=16000`).
    public var littleEndianBytes: [UInt8] { WAVFile.littleEndianBytes(samples) }

    /// Appends the samples as little-endian bytes to `bytes` (no array of its own made for them).
    public func appendLittleEndianBytes(to bytes: inout [UInt8]) { WAVFile.appendLittleEndianBytes(samples, to: &bytes) }
}
