#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// PulseAudio's `module-echo-cancel` (WebRTC AEC by default) loaded over the chosen source and sink, for
/// open-mic on speakers (`--echo-cancel`). Capture from `sourceName` and play to `sinkName`: the module
/// subtracts what the sink plays from what the source hears.
///
/// The module outlives our connection, so it must be unloaded: call `unload()` on every exit path; `deinit`
/// unloads too. A process killed with SIGKILL leaves it loaded; `unloadStale` removes such leftovers.
public final class EchoCanceller: Sendable {
    /// The server it was loaded on.
    public let server: String?
    /// The module's index on the server.
    public let moduleIndex: UInt32
    /// The echo-cancelled virtual source: capture from this.
    public let sourceName: String
    /// The virtual sink whose output is cancelled from the source: play to this.
    public let sinkName: String
    /// The canceller used, e.g. "webrtc".
    public let method: String
    private let loaded = Mutex(true)

    private static let counter = Atomic<Int>(0)

    /// The prefix of the virtual device names, so leftovers can be recognised.
    public static let namePrefix = "parley_ec"

    /// Loads `module-echo-cancel` over `source` and `sink` (nil: the defaults).
    public init(server: String? = nil, source: String? = nil, sink: String? = nil, method: String = "webrtc",
                timeout: Double = 5) throws(PulseAudioError) {
        let n = EchoCanceller.counter.wrappingAdd(1, ordering: .relaxed).newValue
        let tag = "\(EchoCanceller.namePrefix)_\(getpid())_\(n)"
        var args = ["aec_method=\(method)", "source_name=\(tag)_source", "sink_name=\(tag)_sink"]
        if let source { args.append("source_master=\(source)") }
        if let sink { args.append("sink_master=\(sink)") }
        let ctx = try PulseContext(server: server, name: "parley echo-cancel", timeout: timeout)
        moduleIndex = try ctx.loadModule("module-echo-cancel", arguments: args.joined(separator: " "), timeout: timeout)
        self.server = server
        self.method = method
        sourceName = "\(tag)_source"
        sinkName = "\(tag)_sink"
    }

    /// Whether the module is still loaded (by us).
    public var isLoaded: Bool { loaded.withLock { $0 } }

    /// Unloads the module. Safe to call more than once; later calls do nothing.
    public func unload(timeout: Double = 3) throws(PulseAudioError) {
        let wasLoaded = loaded.withLock { l -> Bool in
            let w = l
            l = false
            return w
        }
        guard wasLoaded else { return }
        let ctx = try PulseContext(server: server, name: "parley echo-cancel", timeout: timeout)
        _ = try ctx.unloadModule(moduleIndex, timeout: timeout)
    }

    deinit {
        try? unload()
    }

    /// Unloads echo cancellers left loaded by parley processes that no longer run (killed before they could
    /// unload). Returns how many were removed. Call at startup before loading a new one.
    @discardableResult
    public static func unloadLeftovers(server: String? = nil, timeout: Double = 3) throws(PulseAudioError) -> Int {
        let ctx = try PulseContext(server: server, name: "parley echo-cancel", timeout: timeout)
        var removed = 0
        for m in try ctx.modules(timeout: timeout) where m.name == "module-echo-cancel" {
            guard let pid = ownerPID(ofArguments: m.argument), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }  // still running (or not ours to judge)
            if try ctx.unloadModule(m.index, timeout: timeout) { removed += 1 }
        }
        return removed
    }

    /// The pid in "source_name=parley_ec_<pid>_<n>_source", if the arguments are ours.
    static func ownerPID(ofArguments arguments: String) -> pid_t? {
        let marker = "source_name=\(namePrefix)_"
        guard let r = arguments.range(of: marker) else { return nil }
        let digits = arguments[r.upperBound...].prefix { $0.isNumber }
        return pid_t(digits)
    }

    /// What the UI says about this protection.
    public var protectionDescription: String { "echo cancellation (\(method), PulseAudio module-echo-cancel)" }
}

/// Whether the microphone may reach the model while the model speaks. A pure value, fed with levels.
///
/// With echo cancellation or headphones the mic always passes. Otherwise (open mic on speakers) it is
/// half-duplex: while the model is speaking, and for a short hangover after (the room's echo tail), the mic
/// is muted unless its level clearly exceeds the echo level (the playback level plus the echo path's gain,
/// plus a margin) for long enough: a real barge-in, not the model hearing itself.
public struct HalfDuplexGate: Sendable, Hashable {
    /// Which protection against the model hearing itself is active.
    public enum Protection: Sendable, Hashable, CustomStringConvertible {
        /// PulseAudio's echo canceller runs between the devices and parley.
        case echoCancellation(method: String)
        /// The mic is muted while the model speaks, unless the user is clearly louder.
        case halfDuplex
        /// No protection: headphones, or push-to-talk.
        case none

        /// For the header line, e.g. "echo: half-duplex (mic muted while parley speaks)".
        public var description: String {
            switch self {
            case let .echoCancellation(method): return "echo: cancelled (\(method))"
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
    public mutating func update(micDBFS: Double, playbackDBFS: Double, modelSpeaking: Bool, at time: Double) -> Bool {
        guard case .halfDuplex = protection else {
            isMicOpen = true
            return true
        }
        if modelSpeaking || playbackDBFS > speakingThresholdDBFS { lastSpeech = time }
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

    /// What the UI says about the active protection and its state now.
    public var statusDescription: String {
        switch protection {
        case .halfDuplex: return protection.description + (isMicOpen ? "" : " — mic muted")
        default: return protection.description
        }
    }
}
