import CPulse
import Dispatch

/// Watches one named source or sink through the async API (a `pa_threaded_mainloop` subscription) and calls
/// `onRemoved` when the server removes it. PulseAudio then moves our stream to the default device, or kills
/// it; `pa_simple` reports neither, so the stream threads learn it here and reopen on the default.
///
/// `onRemoved` runs on the watcher's mainloop thread, with the mainloop locked: it must only set a flag.
final class DeviceWatcher: @unchecked Sendable {
    let kind: PulseAudioError.DeviceKind
    let name: String
    private let mainloop: OpaquePointer
    private var context: OpaquePointer?
    private var index: UInt32 = UInt32.max
    private let onRemoved: @Sendable () -> Void
    private let ready = DispatchSemaphore(value: 0)
    private var stopped = false

    init(server: String?, kind: PulseAudioError.DeviceKind, name: String, timeout: Double,
         onRemoved: @escaping @Sendable () -> Void) throws(PulseAudioError) {
        self.kind = kind
        self.name = name
        self.onRemoved = onRemoved
        let where_ = PulseContext.describe(server: server)
        guard let ml = pa_threaded_mainloop_new() else {
            throw .connectionFailed(server: where_, reason: "out of memory")
        }
        mainloop = ml
        guard pa_threaded_mainloop_start(ml) >= 0 else {
            pa_threaded_mainloop_free(ml)
            stopped = true
            throw .connectionFailed(server: where_, reason: "cannot start the mainloop thread")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_threaded_mainloop_lock(ml)
        let ctx = pa_context_new(pa_threaded_mainloop_get_api(ml), "parley device watcher")
        context = ctx
        if let ctx {
            pa_context_set_state_callback(ctx, { c, userdata in
                guard let c, let userdata else { return }
                let w = Unmanaged<DeviceWatcher>.fromOpaque(userdata).takeUnretainedValue()
                let s = pa_context_get_state(c)
                if s == PA_CONTEXT_READY || s == PA_CONTEXT_FAILED || s == PA_CONTEXT_TERMINATED { w.ready.signal() }
            }, me)
            if pa_context_connect(ctx, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 { ready.signal() }
        }
        pa_threaded_mainloop_unlock(ml)
        guard ctx != nil, ready.wait(timeout: .now() + timeout) == .success, isReady else {
            stop()
            throw .noServer(server: where_, reason: "the device watcher could not connect")
        }
        // Find the device's index, then subscribe to removals.
        pa_threaded_mainloop_lock(ml)
        let op: OpaquePointer?
        if kind == .source {
            op = pa_context_get_source_info_by_name(ctx, name, { _, info, eol, userdata in
                guard let userdata else { return }
                let w = Unmanaged<DeviceWatcher>.fromOpaque(userdata).takeUnretainedValue()
                if eol == 0, let info { w.index = info.pointee.index } else { w.ready.signal() }
            }, me)
        } else {
            op = pa_context_get_sink_info_by_name(ctx, name, { _, info, eol, userdata in
                guard let userdata else { return }
                let w = Unmanaged<DeviceWatcher>.fromOpaque(userdata).takeUnretainedValue()
                if eol == 0, let info { w.index = info.pointee.index } else { w.ready.signal() }
            }, me)
        }
        if let op { pa_operation_unref(op) } else { ready.signal() }
        pa_threaded_mainloop_unlock(ml)
        guard ready.wait(timeout: .now() + timeout) == .success else {
            stop()
            throw .timedOut(operation: "a device lookup", seconds: timeout)
        }
        pa_threaded_mainloop_lock(ml)
        let found = index != UInt32.max
        if found {
            pa_context_set_subscribe_callback(ctx, { _, type, idx, userdata in
                guard let userdata else { return }
                let w = Unmanaged<DeviceWatcher>.fromOpaque(userdata).takeUnretainedValue()
                let facility = type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
                let event = type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
                let wanted = w.kind == .source ? PA_SUBSCRIPTION_EVENT_SOURCE.rawValue : PA_SUBSCRIPTION_EVENT_SINK.rawValue
                if facility == wanted, event == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue, idx == w.index {
                    w.onRemoved()
                }
            }, me)
            let mask = kind == .source ? PA_SUBSCRIPTION_MASK_SOURCE : PA_SUBSCRIPTION_MASK_SINK
            if let sub = pa_context_subscribe(ctx, mask, nil, nil) { pa_operation_unref(sub) }
        }
        pa_threaded_mainloop_unlock(ml)
        guard found else {
            stop()
            throw .noSuchDevice(name: name, kind: kind)
        }
    }

    private var isReady: Bool {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return context.map { pa_context_get_state($0) == PA_CONTEXT_READY } ?? false
    }

    /// Disconnects and stops the mainloop thread. Not from `onRemoved`. Safe to call more than once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        pa_threaded_mainloop_lock(mainloop)
        if let c = context {
            pa_context_set_subscribe_callback(c, nil, nil)
            pa_context_set_state_callback(c, nil, nil)
            pa_context_disconnect(c)
            pa_context_unref(c)
        }
        context = nil
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    deinit { stop() }
}
