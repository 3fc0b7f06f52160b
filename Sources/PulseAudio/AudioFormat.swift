/// A PCM format of signed 16-bit little-endian samples: the only sample type parley moves around.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channels: Int

    /// Creates a format of s16le samples at `sampleRate` with `channels` interleaved channels.
    public init(sampleRate: Int, channels: Int = 1) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// What Gemini Live wants from the microphone: 16 kHz mono.
    public static let capture = AudioFormat(sampleRate: 16_000, channels: 1)
    /// What Gemini Live sends back: 24 kHz mono.
    public static let playback = AudioFormat(sampleRate: 24_000, channels: 1)

    /// Bytes in one frame (all channels of one sample instant).
    public var bytesPerFrame: Int { 2 * channels }

    /// The number of samples (all channels) in `milliseconds` of audio.
    public func sampleCount(milliseconds: Int) -> Int { sampleRate * channels * milliseconds / 1000 }

    /// Samples in `nanoseconds` of audio (rounded down).
    public func sampleCount(nanoseconds: UInt64) -> Int { Int(UInt64(sampleRate * channels) * nanoseconds / 1_000_000_000) }

    /// The duration in seconds of `sampleCount` interleaved samples.
    public func duration(sampleCount: Int) -> Double {
        Double(sampleCount) / Double(max(1, sampleRate * channels))
    }

    /// For example "16000 Hz mono s16le".
    public var description: String {
        "\(sampleRate) Hz \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch") s16le"
    }
}
