import CPulse
import Foundation

/// What differs between a capture and a playback stream. Called on the loop thread, or with the loop locked.
protocol PulseStreamRole: AnyObject {
    /// Connects a new `pa_stream` to `device` (nil: the default) and sets its data callbacks. Returns what
    /// `pa_stream_connect_record`/`_playback` returned.
    func connect(_ stream: OpaquePointer, device: String?) -> Int32
    /// The stream is ready: opened, or reopened after a loss.
    func ready(_ stream: OpaquePointer)
    /// The stream is gone (lost or closed): forget what belonged to it.
    func gone()
}

/// One `pa_stream` on a `PulseLoop` that follows its device through losses: when the device goes away
/// (unplugged, module unloaded) the loss is reported and the stream reopened on the default device; when the
/// server goes away, it is reopened once the loop has reconnected. Failed reopens are retried every second
/// and reported once. Guarded by the loop lock.
final class PulseStream: PulseLoopClient {
    let loop: PulseLoop
    let kind: PulseAudioError.DeviceKind
    private unowned let role: any PulseStreamRole
    private let name: String
    private var spec: pa_sample_spec
    private let onEvent: (@Sendable (AudioEvent) -> Void)?
    /// The stream now; nil after a loss until reopened.
    private(set) var stream: OpaquePointer?
    /// The device it is on (nil: the default; after a reopen always the default).
    private(set) var device: String?
    /// Times the stream was reopened after a loss.
    private(set) var reopens = 0
    private var closed = false
    /// While `open` waits: it reports the outcome itself.
    private var opening = false
    private var reopening = false
    /// A `restart()` in progress: ready again is not news.
    private var restarting = false
    private var reopenFailureReported = false
    private var retry: OpaquePointer?

    init(loop: PulseLoop, role: any PulseStreamRole, kind: PulseAudioError.DeviceKind, name: String, format: AudioFormat,
         onEvent: (@Sendable (AudioEvent) -> Void)?) {
        self.loop = loop
        self.role = role
        self.kind = kind
        self.name = name
        spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(format.sampleRate), channels: UInt8(format.channels))
        self.onEvent = onEvent
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Opens the stream on `device`, waiting at most `timeout` for the server (loop locked).
    func open(device: String?, timeout: Double) throws(PulseAudioError) {
        self.device = device
        opening = true
        defer { opening = false }
        guard let s = make(device: device) else {
            throw .streamOpenFailed(device: device, kind: kind, reason: "the sound server went away")
        }
        let settled = loop.wait(timeout: timeout) {
            let st = pa_stream_get_state(s)
            return st == PA_STREAM_READY || st == PA_STREAM_FAILED || st == PA_STREAM_TERMINATED
        }
        if pa_stream_get_state(s) == PA_STREAM_READY {
            loop.attach(self)
            role.ready(s)
            return
        }
        let code = pa_context_errno(pa_stream_get_context(s))
        release()
        if !settled {
            throw .timedOut(operation: "opening the \(kind == .source ? "microphone" : "speaker") stream", seconds: timeout)
        }
        if let device, code == Int32(PA_ERR_NOENTITY.rawValue) || !exists(device, timeout: timeout) {
            throw .noSuchDevice(name: device, kind: kind)
        }
        throw .streamOpenFailed(device: device, kind: kind, reason: PulseContext.errorString(code))
    }

    /// Whether the server lists `device` (the server may refuse a missing one as an invalid argument).
    private func exists(_ device: String, timeout: Double) -> Bool {
        guard let all = try? AudioDevices.query(server: loop.server, timeout: timeout) else { return true }
        return (kind == .source ? all.sources : all.sinks).contains { $0.name == device }
    }

    /// Disconnects the stream and stops following it (loop locked). Nothing is reported after this.
    func close() {
        closed = true
        cancelRetry()
        loop.detach(self)
        if stream != nil {
            release()
            role.gone()
        }
    }

    /// Connects a new `pa_stream` on the same device in place of this one, quietly (loop locked): for settings
    /// the server only honours in full at connect time (the playback buffer). A failure is a loss as usual.
    func restart() {
        guard !closed, stream != nil, !reopening else { return }
        release()
        role.gone()
        restarting = true
        if make(device: device) == nil {
            restarting = false
            lose(.streamOpenFailed(device: device, kind: kind, reason: "the sound server is not there"))
            reopen()
        }
    }

    /// A new `pa_stream` on `device`, connected (not yet ready); nil if the server is not there.
    private func make(device: String?) -> OpaquePointer? {
        guard let ctx = loop.liveContext, let s = pa_stream_new(ctx, name, &spec, nil) else { return nil }
        stream = s
        pa_stream_set_state_callback(s, { s, userdata in
            guard let s, let userdata else { return }
            Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().stateChanged(s)
        }, userdata)
        if role.connect(s, device: device) < 0 {
            release()
            return nil
        }
        return s
    }

    /// Drops the `pa_stream` without telling anyone.
    private func release() {
        guard let s = stream else { return }
        stream = nil
        pa_stream_set_state_callback(s, nil, nil)
        pa_stream_set_read_callback(s, nil, nil)
        pa_stream_set_write_callback(s, nil, nil)
        pa_stream_set_underflow_callback(s, nil, nil)
        if pa_stream_get_state(s) == PA_STREAM_READY || pa_stream_get_state(s) == PA_STREAM_CREATING {
            pa_stream_disconnect(s)
        }
        pa_stream_unref(s)
    }

    private func stateChanged(_ s: OpaquePointer) {
        guard s == stream, !closed, !opening else { return }
        switch pa_stream_get_state(s) {
        case PA_STREAM_READY where restarting:
            restarting = false
            role.ready(s)
        case PA_STREAM_READY where reopening:
            reopening = false
            reopenFailureReported = false
            reopens += 1
            onEvent?(.reopened(kind: kind, device: nil))
            role.ready(s)
        case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
            let ctx = pa_stream_get_context(s)
            guard pa_context_get_state(ctx) == PA_CONTEXT_READY else { return }  // the loop tells us
            let code = pa_context_errno(ctx)
            restarting = false
            if reopening {
                release()
                reopenFailed(.streamOpenFailed(device: nil, kind: kind, reason: PulseContext.errorString(code)))
                return
            }
            let error: PulseAudioError = code == Int32(PA_ERR_NOENTITY.rawValue) || device != nil
                ? .noSuchDevice(name: device ?? "default", kind: kind)
                : .streamFailed(device: device, kind: kind, reason: PulseContext.errorString(code))
            lose(error)
            reopen()
        default:
            break
        }
    }

    /// Reports the loss and drops the stream.
    private func lose(_ error: PulseAudioError) {
        let was = device
        release()
        role.gone()
        onEvent?(.deviceLost(kind: kind, device: was, error: error))
    }

    /// Opens a stream on the default device; its state callback reports how it went.
    private func reopen() {
        cancelRetry()
        guard !closed, stream == nil else { return }
        device = nil
        reopening = true
        if make(device: nil) == nil {
            reopenFailed(.streamOpenFailed(device: nil, kind: kind, reason: "the sound server is not there"))
        }
    }

    private func reopenFailed(_ error: PulseAudioError) {
        if !reopenFailureReported {
            reopenFailureReported = true
            onEvent?(.reopenFailed(kind: kind, error: error))
        }
        // The server may be back by itself (the loop then calls `contextReady`); a device may come back.
        guard loop.liveContext != nil, retry == nil else { return }
        retry = loop.addTimer(after: 1_000_000, userdata: userdata) { _, _, _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().reopen()
        }
    }

    private func cancelRetry() { loop.freeTimer(&retry) }

    // MARK: - PulseLoopClient

    func contextLost(_ error: PulseAudioError) {
        guard !closed else { return }
        cancelRetry()
        if stream != nil {
            let reason: String
            switch error {
            case .noServer(_, let r), .connectionFailed(_, let r): reason = r
            default: reason = "\(error)"
            }
            lose(.streamFailed(device: device, kind: kind, reason: reason))
        }
        reopening = true
    }

    func reconnectFailed(_ error: PulseAudioError) {
        guard !closed, !reopenFailureReported else { return }
        reopenFailureReported = true
        onEvent?(.reopenFailed(kind: kind, error: error))
    }

    func contextReady() {
        guard !closed, stream == nil else { return }
        reopen()
    }
}

/// Something that happened to an open stream, reported through the `onEvent` handler (on the stream's thread).
public enum AudioEvent: Sendable, Equatable {
    /// The device went away (unplugged, module unloaded, server restarted); the stream is being reopened on
    /// the default device.
    case deviceLost(kind: PulseAudioError.DeviceKind, device: String?, error: PulseAudioError)
    /// The stream was reopened, on `device` (nil: the default).
    case reopened(kind: PulseAudioError.DeviceKind, device: String?)
    /// Reopening failed; it is retried every second until it works or the stream is closed.
    case reopenFailed(kind: PulseAudioError.DeviceKind, error: PulseAudioError)
    /// Playback played everything it was given after `drain()`: the speaker is quiet.
    case playbackFinished
}

/// Converts milliseconds of `format` to bytes for buffer attributes.
func bytes(milliseconds: Int, format: AudioFormat) -> UInt32 {
    UInt32(max(format.bytesPerFrame, format.sampleRate * milliseconds / 1000 * format.bytesPerFrame))
}

/// "(uint32_t) -1": let the server choose.
let serverDefault = UInt32.max
