import CAudioProcessing

/// WebRTC's audio processing (echo cancellation, noise suppression, gain control) on 10 ms frames of one
/// mono stream, through the C interface of the CAudioProcessing target.
///
/// Not thread-safe: one thread at a time calls `analyzeFarEnd` and `processNearEnd` (the canceller calls both
/// from the capture thread, in step, one far frame per near frame).
public final class WebRTCAudioProcessing {
    /// What to enable.
    public struct Settings: Sendable, Hashable {
        /// How hard the non-linear stage suppresses the echo left after the adaptive filter.
        public enum Suppression: Int32, Sendable, Hashable { case low = 0, moderate = 1, high = 2 }
        /// Noise suppression strength.
        public enum NoiseLevel: Int32, Sendable, Hashable { case low = 0, moderate = 1, high = 2, veryHigh = 3 }

        /// The sample rate of both streams (8, 16, 32 or 48 kHz).
        public var sampleRate = 16_000
        /// The acoustic echo canceller.
        public var echoCancellation = true
        /// Residual echo suppression.
        public var suppression = Suppression.moderate
        /// A 128 ms adaptive filter instead of 48 ms: more of the room's tail is modelled.
        public var extendedFilter = true
        /// The canceller estimates the far-to-near delay itself (the reported one is a starting point).
        public var delayAgnostic = true
        /// Noise suppression; nil: off. Moderate measured better: it removes the stationary part of the
        /// residual echo (ERLE +5–10 dB) and leaves the near end's level alone.
        public var noiseSuppression: NoiseLevel? = .moderate
        /// Adaptive digital gain control toward `gainTargetDBFS`. Off: it measured worse, lifting the residual
        /// echo as much as the user's voice (ERLE −5–15 dB in the first seconds).
        public var gainControl = false
        /// The gain control's target level, in dB below full scale.
        public var gainTargetDBFS = 3
        /// Removes DC and rumble before the canceller.
        public var highPassFilter = true

        /// What measured best on speech (`PARLEY_BENCH=1 swift test --filter EchoCancellerTests`).
        public init() {}
    }

    /// The canceller's own statistics.
    public struct Metrics: Sendable, Hashable {
        /// Echo return loss enhancement reported by the canceller, in dB (nil until known).
        public var erleDB: Double?
        /// Echo return loss (far-end power over echo power), in dB (nil until known).
        public var erlDB: Double?
        /// The far-to-near delay the canceller estimates, in ms (nil until known).
        public var delayMilliseconds: Int?
        /// Whether the last near-end frame held echo.
        public var hasEcho: Bool
    }

    /// The settings it was created with.
    public let settings: Settings
    /// Samples in one 10 ms frame.
    public let frameSamples: Int
    private let handle: OpaquePointer

    /// Creates the processor; throws if the library refuses the settings.
    public init(settings: Settings = Settings()) throws(PulseAudioError) {
        var config = parley_apm_config(
            sample_rate_hz: Int32(settings.sampleRate), echo_cancellation: settings.echoCancellation ? 1 : 0,
            suppression_level: settings.suppression.rawValue, extended_filter: settings.extendedFilter ? 1 : 0,
            delay_agnostic: settings.delayAgnostic ? 1 : 0, noise_suppression: settings.noiseSuppression?.rawValue ?? -1,
            gain_control: settings.gainControl ? 1 : 0, gain_target_dbfs: Int32(settings.gainTargetDBFS),
            high_pass_filter: settings.highPassFilter ? 1 : 0)
        var message = [CChar](repeating: 0, count: 256)
        guard let h = parley_apm_create(&config, &message, message.count) else {
            let text = message.withUnsafeBufferPointer { b in b.baseAddress.map { String(cString: $0) } ?? "" }
            throw .processingUnavailable(reason: text)
        }
        handle = h
        self.settings = settings
        frameSamples = settings.sampleRate / 100
    }

    deinit { parley_apm_destroy(handle) }

    /// Hands one 10 ms frame of what the speaker plays to the canceller.
    public func analyzeFarEnd(_ frame: UnsafeBufferPointer<Int16>) throws(PulseAudioError) {
        let code = parley_apm_analyze_far(handle, frame.baseAddress, frame.count)
        if code != 0 { throw .processingFailed(reason: String(cString: parley_apm_error_string(code))) }
    }

    /// Processes one 10 ms frame of the microphone in place. `delayMilliseconds`: how long after its far-end
    /// frame was analysed the near-end frame holding its echo is processed.
    public func processNearEnd(_ frame: UnsafeMutableBufferPointer<Int16>, delayMilliseconds: Int) throws(PulseAudioError) {
        let code = parley_apm_process_near(handle, frame.baseAddress, frame.count, Int32(delayMilliseconds))
        if code != 0 { throw .processingFailed(reason: String(cString: parley_apm_error_string(code))) }
    }

    /// The canceller's statistics now.
    public var metrics: Metrics {
        var m = parley_apm_metrics()
        _ = parley_apm_get_metrics(handle, &m)
        return Metrics(erleDB: m.erle_db > -100 ? Double(m.erle_db) : nil, erlDB: m.erl_db > -100 ? Double(m.erl_db) : nil,
                       delayMilliseconds: m.delay_median_ms >= 0 ? Int(m.delay_median_ms) : nil,
                       hasEcho: m.stream_has_echo != 0)
    }
}
