/// A stream thread's hold on its `pa_simple` stream through device loss, shared by capture and playback:
/// when the stream fails or its device goes away, the loss is reported and the stream is reopened on the
/// default device, retried every second until it works or the stream is closed.
///
/// Owned by the stream's thread (it holds the `SimpleStream`, which that thread alone uses).
struct ReopeningStream {
    /// Source (capture) or sink (playback), for the events.
    let kind: PulseAudioError.DeviceKind
    /// Opens a stream on a device (nil: the default).
    let open: (String?) throws(PulseAudioError) -> SimpleStream
    let onEvent: (@Sendable (AudioEvent) -> Void)?
    /// The stream now; nil after a loss until reopened.
    private(set) var stream: SimpleStream?
    /// The device it is on (nil: the default; after a reopen always the default).
    private(set) var device: String?

    init(kind: PulseAudioError.DeviceKind, stream: SimpleStream, device: String?,
         open: @escaping (String?) throws(PulseAudioError) -> SimpleStream, onEvent: (@Sendable (AudioEvent) -> Void)?) {
        self.kind = kind
        self.stream = stream
        self.device = device
        self.open = open
        self.onEvent = onEvent
    }

    /// Reports that the stream failed with `error` and drops it. `detachWatcher` takes the device watcher out of
    /// the shared state (the reopened stream is on the default device, which needs none); it is stopped here.
    mutating func lose(_ error: PulseAudioError, detachWatcher: () -> DeviceWatcher?) {
        detachWatcher()?.stop()
        stream = nil
        onEvent?(.deviceLost(kind: kind, device: device, error: error))
    }

    /// The stream, reopened on the default device first if it was lost: retried every `retry()` (which waits
    /// about a second, returning early on close) until it works or `isStopped()`. Nil only when stopped.
    mutating func current(isStopped: () -> Bool, retry: () -> Void, reopened: () -> Void) -> SimpleStream? {
        if let stream { return stream }
        var reported = false
        while !isStopped() {
            do {
                let s = try open(nil)
                stream = s
                device = nil
                reopened()
                onEvent?(.reopened(kind: kind, device: nil))
                return s
            } catch {
                if !reported { onEvent?(.reopenFailed(kind: kind, error: error)) }
                reported = true
                retry()
            }
        }
        return nil
    }
}
