import CPulse

/// One `pa_simple` stream. Owned by one thread at a time (opened by the caller, then handed to the
/// stream's thread, which alone reads, writes, flushes and frees it), hence `@unchecked Sendable`.
final class SimpleStream: @unchecked Sendable {
    private let handle: OpaquePointer
    let device: String?
    let kind: PulseAudioError.DeviceKind

    /// Opens a stream of s16le `format` on `device` (nil: the default). `bufferAttributes` sets the
    /// latency: `fragsize` for capture, `tlength`/`prebuf`/`minreq` for playback.
    init(server: String?, appName: String, streamName: String, kind: PulseAudioError.DeviceKind,
         device: String?, format: AudioFormat, bufferAttributes: pa_buffer_attr) throws(PulseAudioError) {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channels))
        var attr = bufferAttributes
        var error: Int32 = 0
        let dir = kind == .source ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK
        let created = withAudioThreadPriority {
            pa_simple_new(server, appName, dir, device, streamName, &spec, nil, &attr, &error)
        }
        guard let h = created else {
            if error == Int32(PA_ERR_NOENTITY.rawValue), let device {
                throw .noSuchDevice(name: device, kind: kind)
            }
            if error == Int32(PA_ERR_CONNECTIONREFUSED.rawValue) || error == Int32(PA_ERR_INVALIDSERVER.rawValue) {
                throw .noServer(server: PulseContext.describe(server: server), reason: PulseContext.errorString(error))
            }
            throw .streamOpenFailed(device: device, kind: kind, reason: PulseContext.errorString(error))
        }
        handle = h
        self.device = device
        self.kind = kind
    }

    deinit { pa_simple_free(handle) }

    private func failure(_ error: Int32) -> PulseAudioError {
        .streamFailed(device: device, kind: kind, reason: PulseContext.errorString(error))
    }

    /// Blocks until `buffer` is full of captured samples.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(PulseAudioError) {
        var error: Int32 = 0
        if pa_simple_read(handle, buffer.baseAddress, buffer.count * 2, &error) < 0 { throw failure(error) }
    }

    /// Blocks until all of `buffer` is handed to the server.
    func write(_ buffer: UnsafeBufferPointer<Int16>) throws(PulseAudioError) {
        var error: Int32 = 0
        if pa_simple_write(handle, buffer.baseAddress, buffer.count * 2, &error) < 0 { throw failure(error) }
    }

    /// Drops what the server has buffered for this stream.
    func flush() throws(PulseAudioError) {
        var error: Int32 = 0
        if pa_simple_flush(handle, &error) < 0 { throw failure(error) }
    }

    /// Blocks until what was written has been played.
    func drain() throws(PulseAudioError) {
        var error: Int32 = 0
        if pa_simple_drain(handle, &error) < 0 { throw failure(error) }
    }

    /// The stream's total latency in microseconds (local, interpolated: no server round trip).
    func latency() -> UInt64 {
        var error: Int32 = 0
        let l = pa_simple_get_latency(handle, &error)
        return l == UInt64.max ? 0 : l
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
