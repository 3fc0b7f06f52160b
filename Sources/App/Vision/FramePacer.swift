/// Decides when a camera or screen frame goes out: never faster than the service takes them (one a second),
/// only while sharing is on, and only while the user talks unless frames are wanted all the time. A value
/// type driven by the caller's clock, so it is tested without waiting.
struct FramePacer: Sendable, Equatable {
    /// The service takes at most one frame a second.
    static let interval: Duration = .seconds(1)

    var timing: VisionSettings.FrameTiming
    /// Sharing is on (`c` toggles it). While it is off nothing is captured at all.
    var sharing: Bool
    /// Push-to-talk held, or speech heard in open mic.
    var talking = false
    private(set) var lastSent: Duration?
    private(set) var framesSent = 0
    private(set) var bytesSent = 0

    init(timing: VisionSettings.FrameTiming, sharing: Bool) {
        self.timing = timing
        self.sharing = sharing
    }

    /// Whether frames are wanted right now (the capture process runs only while sharing is on).
    var wantsFrames: Bool { sharing && (talking || timing == .always) }

    /// Whether a frame should be sent at `now` (the caller's monotonic time).
    func due(at now: Duration) -> Bool {
        guard wantsFrames else { return false }
        guard let lastSent else { return true }
        return now - lastSent >= Self.interval
    }

    /// Records a frame of `bytes` sent at `now`.
    mutating func sent(bytes: Int, at now: Duration) {
        lastSent = now
        framesSent += 1
        bytesSent += bytes
    }

    /// Average bytes per frame so far (for the header).
    var bytesPerFrame: Int { framesSent == 0 ? 0 : bytesSent / framesSent }
}
