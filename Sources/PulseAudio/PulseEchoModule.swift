#if canImport(Glibc)
import Glibc
#endif
import ParleyLock
import Synchronization

/// PulseAudio's `module-echo-cancel` (WebRTC AEC by default) loaded over the chosen source and sink, for
/// open-mic on speakers (`--echo-cancel`). Capture from `sourceName` and play to `sinkName`: the module
/// subtracts what the sink plays from what the source hears.
///
/// The module outlives our connection, so it must be unloaded: call `unload()` on every exit path; `deinit`
/// unloads too. A process killed with SIGKILL leaves it loaded; `unloadStale` removes such leftovers.
public final class PulseEchoModule: Sendable {
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
    private let loaded = Locked(true)

    private static let counter = Atomic<Int>(0)

    /// The prefix of the virtual device names, so leftovers can be recognised.
    public static let namePrefix = "parley_ec"

    /// Loads `module-echo-cancel` over `source` and `sink` (nil: the defaults).
    public init(server: String? = nil, source: String? = nil, sink: String? = nil, method: String = "webrtc",
                timeout: Double = 5) throws(PulseAudioError) {
        let n = PulseEchoModule.counter.wrappingAdd(1, ordering: .relaxed).newValue
        let tag = "\(PulseEchoModule.namePrefix)_\(getpid())_\(n)"
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
