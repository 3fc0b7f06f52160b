import CPulse
import ParleyTime
import Foundation

/// A short-lived connection to a PulseAudio server over the async API, driven by a private `pa_mainloop`
/// that is iterated with deadlines: a missing or frozen server is an error after the timeout, never a hang.
/// Used from one thread at a time (it is created, used and freed inside one call).
final class PulseContext {
    let server: String?
    private let mainloop: OpaquePointer
    private let context: OpaquePointer

    /// Where a nil server string points, for error messages.
    static func describe(server: String?) -> String {
        if let server { return server }
        let env = ProcessInfo.processInfo.environment
        if let s = env["PULSE_SERVER"], !s.isEmpty { return s }
        if let run = env["XDG_RUNTIME_DIR"], !run.isEmpty { return "unix:\(run)/pulse/native" }
        return "the default socket"
    }

    static func errorString(_ code: Int32) -> String {
        guard let s = pa_strerror(code) else { return "error \(code)" }
        return String(cString: s)
    }

    /// Connects to `server` (nil: the default one) without autospawning a daemon.
    init(server: String?, name: String = "parley", timeout: Double) throws(PulseAudioError) {
        self.server = server
        guard let ml = pa_mainloop_new() else {
            throw .connectionFailed(server: PulseContext.describe(server: server), reason: "out of memory")
        }
        guard let ctx = pa_context_new(pa_mainloop_get_api(ml), name) else {
            pa_mainloop_free(ml)
            throw .connectionFailed(server: PulseContext.describe(server: server), reason: "out of memory")
        }
        mainloop = ml
        context = ctx
        let where_ = PulseContext.describe(server: server)
        if pa_context_connect(ctx, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            throw .noServer(server: where_, reason: PulseContext.errorString(pa_context_errno(ctx)))
        }
        let deadline = TimeSource.monotonic.nanoseconds() + UInt64(timeout * 1e9)
        while true {
            let state = pa_context_get_state(ctx)
            if state == PA_CONTEXT_READY { return }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                let code = pa_context_errno(ctx)
                let reason = PulseContext.errorString(code)
                let gone = [PA_ERR_CONNECTIONREFUSED, PA_ERR_INVALIDSERVER, PA_ERR_CONNECTIONTERMINATED, PA_ERR_TIMEOUT]
                if gone.contains(where: { Int32($0.rawValue) == code }) {
                    throw .noServer(server: where_, reason: reason)
                }
                throw .connectionFailed(server: where_, reason: reason)
            }
            guard iterate(until: deadline) else {
                throw .noServer(server: where_, reason: "no answer within \(formatSeconds(timeout))")
            }
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Runs one mainloop iteration, waiting at most until `deadline`. False when the deadline passed.
    private func iterate(until deadline: UInt64) -> Bool {
        let now = TimeSource.monotonic.nanoseconds()
        guard now < deadline else { return false }
        let usec = Int32(min(UInt64(Int32.max), (deadline - now) / 1000))
        if pa_mainloop_prepare(mainloop, usec) < 0 { return false }
        if pa_mainloop_poll(mainloop) < 0 { return false }
        _ = pa_mainloop_dispatch(mainloop)
        return true
    }

    /// Iterates until `op` finishes; the callback it was started with fills in the results.
    func wait(_ op: OpaquePointer?, _ what: String, timeout: Double) throws(PulseAudioError) {
        guard let op else {
            throw .connectionFailed(server: PulseContext.describe(server: server),
                                    reason: PulseContext.errorString(pa_context_errno(context)))
        }
        defer { pa_operation_unref(op) }
        let deadline = TimeSource.monotonic.nanoseconds() + UInt64(timeout * 1e9)
        while pa_operation_get_state(op) == PA_OPERATION_RUNNING {
            if pa_context_get_state(context) != PA_CONTEXT_READY {
                throw .connectionFailed(server: PulseContext.describe(server: server),
                                        reason: PulseContext.errorString(pa_context_errno(context)))
            }
            guard iterate(until: deadline) else {
                pa_operation_cancel(op)
                throw .timedOut(operation: what, seconds: timeout)
            }
        }
    }

    // MARK: queries

    struct ServerInfo {
        var defaultSink: String?
        var defaultSource: String?
        var serverName: String
        var serverVersion: String
    }

    private final class Box<T> {
        var value: T
        init(_ value: T) { self.value = value }
    }

    private static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    func serverInfo(timeout: Double) throws(PulseAudioError) -> ServerInfo {
        let box = Box(ServerInfo(defaultSink: nil, defaultSource: nil, serverName: "", serverVersion: ""))
        let op = pa_context_get_server_info(context, { _, info, userdata in
            guard let info, let userdata else { return }
            let box = Unmanaged<Box<ServerInfo>>.fromOpaque(userdata).takeUnretainedValue()
            box.value = ServerInfo(defaultSink: PulseContext.string(info.pointee.default_sink_name),
                                   defaultSource: PulseContext.string(info.pointee.default_source_name),
                                   serverName: PulseContext.string(info.pointee.server_name) ?? "",
                                   serverVersion: PulseContext.string(info.pointee.server_version) ?? "")
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "a server-info request", timeout: timeout)
        return box.value
    }

    struct RawDevice {
        var name: String
        var description: String
        var isMonitor: Bool
        var spec: String
    }

    private static func describeSpec(_ ss: pa_sample_spec) -> String {
        var buf = [CChar](repeating: 0, count: Int(PA_SAMPLE_SPEC_SNPRINT_MAX))
        var spec = ss
        return buf.withUnsafeMutableBufferPointer { b in
            guard let base = b.baseAddress else { return "" }
            pa_sample_spec_snprint(base, b.count, &spec)
            return String(cString: base)
        }
    }

    func sinks(timeout: Double) throws(PulseAudioError) -> [RawDevice] {
        let box = Box([RawDevice]())
        let op = pa_context_get_sink_info_list(context, { _, info, eol, userdata in
            guard eol == 0, let info, let userdata else { return }
            let box = Unmanaged<Box<[RawDevice]>>.fromOpaque(userdata).takeUnretainedValue()
            box.value.append(RawDevice(name: PulseContext.string(info.pointee.name) ?? "",
                                       description: PulseContext.string(info.pointee.description) ?? "",
                                       isMonitor: false, spec: PulseContext.describeSpec(info.pointee.sample_spec)))
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "a sink list request", timeout: timeout)
        return box.value
    }

    func sources(timeout: Double) throws(PulseAudioError) -> [RawDevice] {
        let box = Box([RawDevice]())
        let op = pa_context_get_source_info_list(context, { _, info, eol, userdata in
            guard eol == 0, let info, let userdata else { return }
            let box = Unmanaged<Box<[RawDevice]>>.fromOpaque(userdata).takeUnretainedValue()
            box.value.append(RawDevice(name: PulseContext.string(info.pointee.name) ?? "",
                                       description: PulseContext.string(info.pointee.description) ?? "",
                                       isMonitor: info.pointee.monitor_of_sink != UInt32.max,
                                       spec: PulseContext.describeSpec(info.pointee.sample_spec)))
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "a source list request", timeout: timeout)
        return box.value
    }

    struct Module {
        var index: UInt32
        var name: String
        var argument: String
    }

    func modules(timeout: Double) throws(PulseAudioError) -> [Module] {
        let box = Box([Module]())
        let op = pa_context_get_module_info_list(context, { _, info, eol, userdata in
            guard eol == 0, let info, let userdata else { return }
            let box = Unmanaged<Box<[Module]>>.fromOpaque(userdata).takeUnretainedValue()
            box.value.append(Module(index: info.pointee.index, name: PulseContext.string(info.pointee.name) ?? "",
                                    argument: PulseContext.string(info.pointee.argument) ?? ""))
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "a module list request", timeout: timeout)
        return box.value
    }

    /// Loads a module; returns its index.
    func loadModule(_ name: String, arguments: String, timeout: Double) throws(PulseAudioError) -> UInt32 {
        let box = Box(UInt32.max)
        let op = pa_context_load_module(context, name, arguments, { _, index, userdata in
            guard let userdata else { return }
            Unmanaged<Box<UInt32>>.fromOpaque(userdata).takeUnretainedValue().value = index
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "loading \(name)", timeout: timeout)
        guard box.value != UInt32.max else {
            throw .moduleLoadFailed(module: name, reason: PulseContext.errorString(pa_context_errno(context)))
        }
        return box.value
    }

    /// Unloads a module; true when the server confirmed.
    func unloadModule(_ index: UInt32, timeout: Double) throws(PulseAudioError) -> Bool {
        let box = Box(false)
        let op = pa_context_unload_module(context, index, { _, success, userdata in
            guard let userdata else { return }
            Unmanaged<Box<Bool>>.fromOpaque(userdata).takeUnretainedValue().value = success != 0
        }, Unmanaged.passUnretained(box).toOpaque())
        try wait(op, "unloading module \(index)", timeout: timeout)
        return box.value
    }
}
