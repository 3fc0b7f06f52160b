import CPulse
import ParleyTime
import Foundation
import ParleyLock

/// A stream living on a `PulseLoop`, told when the server connection goes and comes back. Called on the
/// loop thread with the loop locked.
protocol PulseLoopClient: AnyObject {
    /// The server went away (it died or dropped us); reconnecting is retried every second.
    func contextLost(_ error: PulseAudioError)
    /// A reconnection attempt failed; the next one follows in a second.
    func reconnectFailed(_ error: PulseAudioError)
    /// The server is back: open the stream again.
    func contextReady()
}

/// parley's one connection to a PulseAudio server: a `PulseMainloop` (one thread, "parley-audio") and its
/// context, shared by the capture and playback streams of that server. Captured chunks are processed and
/// reply audio is written on that thread or, for writes, directly on the caller's thread under the loop lock —
/// no thread of our own per stream, no hop per chunk.
///
/// Locking: everything a stream keeps is guarded by the loop lock (`locked`), which callbacks already hold.
/// When the server dies the context is reconnected every second and the clients are told.
final class PulseLoop: @unchecked Sendable {
    let server: String?
    private let mainloop: PulseMainloop
    private var context: OpaquePointer?
    private var ready = false
    private var clients: [ObjectIdentifier: Weak] = [:]
    private var retry: OpaquePointer?
    private var reconnectReported = false
    private var stopping = false
    /// The server is PipeWire's PulseAudio server (`pipewire-pulse`), from its server info: known before any
    /// stream connects (opening waits for the answer; after a reconnect the streams are told the context is ready
    /// once it came), so a stream's buffer can be asked for as that server wants it (`PulsePlayback`).
    private(set) var serverIsPipeWire = false
    /// The server answered `askServerName` since the context last became ready.
    private var serverKnown = false
    /// While `open` connects: it reports a failure itself (no reconnecting).
    private var opening = false

    private struct Weak { weak var client: (any PulseLoopClient)? }

    private final class WeakLoop: @unchecked Sendable { weak var loop: PulseLoop? }
    private static let registry = Locked<[String: WeakLoop]>([:])

    /// The loop for `server` (nil: `$PULSE_SERVER` or the default socket), connecting it first if no stream
    /// holds one: fails within `timeout` if no server answers.
    static func shared(server: String?, timeout: Double) throws(PulseAudioError) -> PulseLoop {
        let key = server ?? ""
        return try registry.withLock { loops throws(PulseAudioError) -> PulseLoop in
            if let loop = loops[key]?.loop, loop.isReady { return loop }
            let loop = try open(server: server, timeout: timeout)
            let entry = WeakLoop()
            entry.loop = loop
            loops[key] = entry
            return loop
        }
    }

    private init(server: String?, mainloop: PulseMainloop) {
        self.server = server
        self.mainloop = mainloop
    }

    private static func open(server: String?, timeout: Double) throws(PulseAudioError) -> PulseLoop {
        let ml: PulseMainloop
        do throws(PulseAudioError) {
            ml = try PulseMainloop()
        } catch {
            throw .connectionFailed(server: PulseContext.describe(server: server), reason: "out of memory")
        }
        let loop = PulseLoop(server: server, mainloop: ml)  // its deinit stops the loop
        guard ml.start() else {
            throw .connectionFailed(server: PulseContext.describe(server: server), reason: "cannot start the audio thread")
        }
        try loop.locked { () throws(PulseAudioError) in try loop.connect(timeout: timeout) }
        return loop
    }

    deinit {
        mainloop.lock()
        stopping = true
        cancelRetry()
        dropContext()
        mainloop.unlock()
        mainloop.stop()
    }

    private var isReady: Bool { locked { ready } }

    /// Runs `body` with the loop locked (directly when already on the loop thread).
    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let inside = mainloop.inThread
        if !inside { mainloop.lock() }
        defer { if !inside { mainloop.unlock() } }
        return try body()
    }

    /// The loop's API, for timers (loop locked).
    var api: UnsafeMutablePointer<pa_mainloop_api>? { mainloop.api }

    /// A one-shot timer on the loop, `microseconds` from now (loop locked); `callback` gets `userdata`.
    /// Free it with `freeTimer` (also once it has fired).
    func addTimer(after microseconds: pa_usec_t, userdata: UnsafeMutableRawPointer,
                  _ callback: pa_time_event_cb_t) -> OpaquePointer? {
        guard let api else { return nil }
        var tv = timeval()
        pa_gettimeofday(&tv)
        pa_timeval_add(&tv, microseconds)
        return api.pointee.time_new(api, &tv, callback, userdata)
    }

    /// Frees a timer from `addTimer` and clears `timer` (loop locked); nothing if it is nil.
    func freeTimer(_ timer: inout OpaquePointer?) {
        guard let t = timer, let api else { return }
        api.pointee.time_free(t)
        timer = nil
    }

    /// The context, when connected (loop locked).
    var liveContext: OpaquePointer? { ready ? context : nil }

    func attach(_ client: any PulseLoopClient) { locked { clients[ObjectIdentifier(client)] = Weak(client: client) } }
    func detach(_ client: any PulseLoopClient) { locked { _ = clients.removeValue(forKey: ObjectIdentifier(client)) } }

    /// Waits (loop locked) until `done()` holds or `timeout` seconds pass, letting the loop run meanwhile.
    /// Only for opening: it looks every half millisecond, which also covers a server that never answers.
    func wait(timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = TimeSource.monotonic.nanoseconds() + UInt64(timeout * 1e9)
        while !done() {
            if TimeSource.monotonic.nanoseconds() >= deadline { return false }
            mainloop.unlock()
            usleep(500)
            mainloop.lock()
        }
        return true
    }

    /// Until `deadline` (`TimeSource.monotonic` ns), the server's data does not wake the loop
    /// (`PulseMainloop.holdData`).
    func holdData(until deadline: UInt64) { mainloop.holdData(until: deadline) }

    /// Whether the server's data had been waiting for a hold to end when the loop last woke (loop thread).
    var dataWaitedThroughHold: Bool { mainloop.dataWaitedThroughHold }

    /// How often the loop woke with something to dispatch.
    var loopWakeups: Int { mainloop.wakeups }
    /// How many holds ended before the server's data came.
    var holdsEndedEmpty: Int { mainloop.holdsEndedEmpty }

    // MARK: - The connection

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func connect(timeout: Double) throws(PulseAudioError) {
        let where_ = PulseContext.describe(server: server)
        guard let api = mainloop.api, let ctx = pa_context_new(api, "parley") else {
            throw .connectionFailed(server: where_, reason: "out of memory")
        }
        context = ctx
        opening = true
        defer { opening = false }
        pa_context_set_state_callback(ctx, { ctx, userdata in
            guard let ctx, let userdata else { return }
            Unmanaged<PulseLoop>.fromOpaque(userdata).takeUnretainedValue().stateChanged(ctx)
        }, userdata)
        if pa_context_connect(ctx, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            let reason = PulseContext.errorString(pa_context_errno(ctx))
            dropContext()
            throw .noServer(server: where_, reason: reason)
        }
        let settled = wait(timeout: timeout) {
            let s = pa_context_get_state(ctx)
            return s == PA_CONTEXT_READY || s == PA_CONTEXT_FAILED || s == PA_CONTEXT_TERMINATED
        }
        if pa_context_get_state(ctx) == PA_CONTEXT_READY {
            ready = true
            askServerName(ctx)
            // One round trip (under a millisecond on a local socket); a server that does not answer is taken for
            // PulseAudio once the open's time is up.
            _ = wait(timeout: timeout) { serverKnown }
            return
        }
        let error = settled ? Self.failure(ctx, server: where_)
            : PulseAudioError.noServer(server: where_, reason: "no answer within \(formatSeconds(timeout))")
        dropContext()
        throw error
    }

    private func askServerName(_ ctx: OpaquePointer) {
        serverKnown = false
        let op = pa_context_get_server_info(ctx, { _, info, userdata in
            guard let userdata else { return }
            let loop = Unmanaged<PulseLoop>.fromOpaque(userdata).takeUnretainedValue()
            // No info: the request failed (libpulse answers nil then); the server stays taken for PulseAudio.
            if let name = info?.pointee.server_name { loop.serverIsPipeWire = String(cString: name).contains("PipeWire") }
            loop.serverAnswered()
        }, userdata)
        if let op { pa_operation_unref(op) } else { serverAnswered() }
    }

    /// The server said what it is: streams waiting for the context (a reconnect) connect now.
    private func serverAnswered() {
        serverKnown = true
        guard ready, clientsWaiting else { return }
        clientsWaiting = false
        each { $0.contextReady() }
    }

    private static func failure(_ ctx: OpaquePointer, server: String) -> PulseAudioError {
        let code = pa_context_errno(ctx)
        let reason = PulseContext.errorString(code)
        let gone = [PA_ERR_CONNECTIONREFUSED, PA_ERR_INVALIDSERVER, PA_ERR_CONNECTIONTERMINATED, PA_ERR_TIMEOUT]
        return gone.contains(where: { Int32($0.rawValue) == code })
            ? .noServer(server: server, reason: reason) : .connectionFailed(server: server, reason: reason)
    }

    private func dropContext() {
        guard let ctx = context else { return }
        pa_context_set_state_callback(ctx, nil, nil)
        pa_context_disconnect(ctx)
        pa_context_unref(ctx)
        context = nil
        ready = false
    }

    private func stateChanged(_ ctx: OpaquePointer) {
        guard ctx == context, !stopping, !opening else { return }
        switch pa_context_get_state(ctx) {
        case PA_CONTEXT_READY:
            ready = true
            reconnectReported = false
            askServerName(ctx)  // then the waiting streams reconnect (`serverAnswered`)
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let error = Self.failure(ctx, server: PulseContext.describe(server: server))
            let wasReady = ready
            dropContext()
            if wasReady {
                clientsWaiting = true
                each { $0.contextLost(error) }
            } else if !reconnectReported {
                reconnectReported = true
                each { $0.reconnectFailed(error) }
            }
            scheduleReconnect()
        default:
            break
        }
    }

    /// Whether clients lost the connection and wait for `contextReady`.
    private var clientsWaiting = false

    private func each(_ body: (any PulseLoopClient) -> Void) {
        for w in Array(clients.values) { if let c = w.client { body(c) } }
    }

    private func scheduleReconnect() {
        guard retry == nil, !stopping else { return }
        retry = addTimer(after: 1_000_000, userdata: userdata) { _, _, _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseLoop>.fromOpaque(userdata).takeUnretainedValue().reconnect()
        }
    }

    private func cancelRetry() { freeTimer(&retry) }

    /// A retry: a fresh context; its state callback reports how it went.
    private func reconnect() {
        cancelRetry()
        guard !stopping, context == nil, let api = mainloop.api,
            let ctx = pa_context_new(api, "parley")
        else { return }
        context = ctx
        pa_context_set_state_callback(ctx, { ctx, userdata in
            guard let ctx, let userdata else { return }
            Unmanaged<PulseLoop>.fromOpaque(userdata).takeUnretainedValue().stateChanged(ctx)
        }, userdata)
        if pa_context_connect(ctx, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            guard context == ctx else { return }  // its state callback has dealt with it (and freed it)
            let error = Self.failure(ctx, server: PulseContext.describe(server: server))
            dropContext()
            if !reconnectReported {
                reconnectReported = true
                each { $0.reconnectFailed(error) }
            }
            scheduleReconnect()
        }
    }
}
