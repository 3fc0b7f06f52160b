/// Whether the microphone may reach the model while the model speaks. A pure value, fed with levels.
///
/// With echo cancellation or headphones the mic always passes. Otherwise (open mic on speakers) it is
/// half-duplex: while the model is speaking, and for a short hangover after (the room's echo tail), the mic
/// is muted unless its level clearly exceeds the echo level (the playback level plus the echo path's gain,
/// plus a margin) for long enough: a real barge-in, not the model hearing itself.
public struct HalfDuplexGate: Sendable, Hashable {
    /// Which protection against the model hearing itself is active.
    public enum Protection: Sendable, Hashable, CustomStringConvertible {
        /// parley's own canceller (WebRTC AEC) cleans the mic of what the speaker plays: full duplex.
        case canceller
        /// PulseAudio's echo canceller runs between the devices and parley.
        case echoCancellation(method: String)
        /// The mic is muted while the model speaks, unless the user is clearly louder.
        case halfDuplex
        /// No protection: headphones, or push-to-talk.
        case none

        /// For the header line, e.g. "echo: half-duplex (mic muted while parley speaks)".
        public var description: String {
            switch self {
            case .canceller: return "echo: cancelled in parley (WebRTC AEC, full duplex)"
            case let .echoCancellation(method): return "echo: cancelled (\(method), PulseAudio module)"
            case .halfDuplex: return "echo: half-duplex (mic muted while parley speaks; speak up to interrupt)"
            case .none: return "echo: no protection (use headphones)"
            }
        }
    }

    /// The active protection.
    public var protection: Protection
    /// How much louder than the estimated echo the mic must be to pass while the model speaks, in dB.
    public var marginDB: Double = 10
    /// The echo path's gain: how loud the mic hears the speaker relative to what is played, in dB.
    /// 0 dB is conservative (the mic hears the speaker as loud as the signal sent to it).
    public var echoCouplingDB: Double = 0
    /// How long the mic must stay clearly louder before it passes, in seconds.
    public var bargeInHold: Double = 0.06
    /// How long after the playback goes quiet the echo is still expected, in seconds.
    public var hangover: Double = 0.3
    /// A playback level above this counts as the model speaking, in dBFS.
    public var speakingThresholdDBFS: Double = -55

    /// With `.canceller`: whether the canceller has converged. Until it has, the gate mutes the mic while the
    /// model speaks, as in half-duplex.
    public var cancellerConverged = true

    private var lastSpeech: Double = -.infinity
    private var louderSince: Double?
    /// Whether the mic passed at the last update.
    public private(set) var isMicOpen = true

    /// A gate with the given protection.
    public init(protection: Protection) {
        self.protection = protection
    }

    /// Feeds the levels at `time` (seconds) — mic RMS, playback RMS (what is heard now) and whether the model
    /// is in its speaking turn — and returns whether the mic passes.
    @discardableResult
    public mutating func update(micDBFS: Double, playbackDBFS: Double, modelAnswering: Bool, at time: Double) -> Bool {
        guard gating else {
            isMicOpen = true
            return true
        }
        if modelAnswering || playbackDBFS > speakingThresholdDBFS { lastSpeech = time }
        guard time - lastSpeech <= hangover else {
            louderSince = nil
            isMicOpen = true
            return true
        }
        let echo = max(playbackDBFS, speakingThresholdDBFS) + echoCouplingDB
        if micDBFS > echo + marginDB {
            if louderSince == nil { louderSince = time }
        } else {
            louderSince = nil
        }
        isMicOpen = louderSince.map { time - $0 >= bargeInHold } ?? false
        return isMicOpen
    }

    /// Whether the gate is muting the mic while the model speaks: half-duplex, or a canceller still adapting.
    private var gating: Bool {
        switch protection {
        case .halfDuplex: return true
        case .canceller: return !cancellerConverged
        case .echoCancellation, .none: return false
        }
    }

    /// What the UI says about the active protection and its state now.
    public var statusDescription: String {
        switch protection {
        case .halfDuplex: return protection.description + (isMicOpen ? "" : " — mic muted")
        case .canceller where !cancellerConverged: return protection.description + " — adapting" + (isMicOpen ? "" : ", mic muted")
        default: return protection.description
        }
    }
}
