/// How parley keeps the model from hearing itself through the speakers: the `echo_cancel` setting and
/// `--echo`. Decides which protection is active for a talk mode and what could be set up.
public enum EchoCancelMode: String, Sendable, Hashable, CaseIterable {
    /// Open mic: parley's own canceller (the gate if it cannot be created). Push-to-talk: nothing.
    case auto
    /// parley's own canceller in both talk modes (the gate in open mic if it cannot be created).
    case webrtc
    /// PulseAudio's `module-echo-cancel` (what `echo_cancel = true` and `--echo-cancel` meant before).
    case pulse
    /// The half-duplex gate only: the mic is muted while the model speaks (`echo_cancel = false` before).
    case gate
    /// No protection: headphones.
    case off

    /// Parses a setting: a mode name, or the old `true` (PulseAudio's module) and `false` (the gate).
    public init?(setting: String) {
        switch setting.lowercased() {
        case "true": self = .pulse
        case "false": self = .gate
        default:
            guard let m = EchoCancelMode(rawValue: setting.lowercased()) else { return nil }
            self = m
        }
    }

    /// The old boolean `echo_cancel`: true loaded PulseAudio's module, false left the gate.
    public init(legacy: Bool) { self = legacy ? .pulse : .gate }

    /// The accepted values, for error messages.
    public static let choices = "auto, webrtc, pulse, gate or off"

    /// Whether to create parley's canceller when the devices open.
    public var wantsCanceller: Bool { self == .auto || self == .webrtc }
    /// Whether to load PulseAudio's `module-echo-cancel` when the devices open.
    public var wantsModule: Bool { self == .pulse }

    /// Whether parley's canceller processes the mic in this talk mode (push-to-talk has nothing to cancel
    /// unless asked for explicitly).
    public func cancellerActive(openMic: Bool) -> Bool {
        self == .webrtc || (self == .auto && openMic)
    }

    /// The protection in force for a talk mode, given what could be set up: parley's canceller, the PulseAudio
    /// module (its method), neither. Push-to-talk sends nothing unless a key is held, so it needs none.
    public func protection(openMic: Bool, hasCanceller: Bool, moduleMethod: String?) -> HalfDuplexGate.Protection {
        switch self {
        case .off: return .none
        case .pulse:
            if let moduleMethod { return .echoCancellation(method: moduleMethod) }
        case .auto, .webrtc:
            if hasCanceller, cancellerActive(openMic: openMic) { return .canceller }
        case .gate: break
        }
        return openMic ? .halfDuplex : .none
    }
}
