import Foundation
import Synchronization

/// What the header shows about sharing.
struct VisionStatus: Sendable, Equatable {
    /// e.g. `camera /dev/video0`.
    var source: String
    var sharing: Bool
    var framesSent: Int
    var bytesPerFrame: Int
    /// Why capture stopped or could not start.
    var problem: String?

    /// The header text: the source, frames sent and bytes per frame, or that sharing is off.
    var headerText: String {
        if let problem { return "\(source): \(problem)" }
        guard sharing else { return "\(source): sharing off" }
        return "\(source) · \(framesSent) frames · \(AttachedImage.formatBytes(bytesPerFrame))/frame"
    }
}

/// Streams camera or screen frames to the conversation: capture runs only while sharing is on, and a
/// ``FramePacer`` lets a frame out at most once a second, while the user talks (or always, if configured).
final class FrameStreamer: Sendable {
    private struct State {
        var pacer: FramePacer
        var capture: FrameCapture?
        var lastSerial = 0
        var problem: String?
    }

    let input: CaptureInput
    private let resolution: MediaResolution
    private let send: @Sendable (Data) -> Bool
    private let state: Mutex<State>
    private let clock = ContinuousClock()
    private let epoch: ContinuousClock.Instant
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// - Parameter send: hands a JPEG to the session (`LiveSession.sendVideo`); false when it was not sent.
    init(input: CaptureInput, resolution: MediaResolution, timing: VisionSettings.FrameTiming, send: @escaping @Sendable (Data) -> Bool) {
        self.input = input
        self.resolution = resolution
        self.send = send
        state = Mutex(State(pacer: FramePacer(timing: timing, sharing: false)))
        epoch = clock.now
    }

    /// Turns sharing on (starting capture) or off (stopping it: nothing is captured while off).
    func setSharing(_ on: Bool) {
        let stopping: FrameCapture? = state.withLock { (s: inout State) -> FrameCapture? in
            s.pacer.sharing = on
            if on {
                guard s.capture == nil else { return nil }
                do {
                    s.capture = try FrameCapture(input, resolution: resolution)
                    s.problem = nil
                } catch {
                    s.problem = "\(error)"
                    s.pacer.sharing = false
                }
                return nil
            }
            defer { s.capture = nil }
            return s.capture
        }
        stopping?.stop()
        if on { startTicking() } else { ticker.withLock { $0?.cancel(); $0 = nil } }
    }

    /// Push-to-talk held / released, or speech heard / ended in open mic.
    func setTalking(_ talking: Bool) { state.withLock { $0.pacer.talking = talking } }

    var status: VisionStatus {
        state.withLock { s in
            VisionStatus(source: input.label, sharing: s.pacer.sharing, framesSent: s.pacer.framesSent,
                         bytesPerFrame: s.pacer.bytesPerFrame, problem: s.problem)
        }
    }

    /// Sends the newest frame if one is due; called every 100 ms while sharing.
    func tick() {
        let now = clock.now - epoch
        let frame: Data? = state.withLock { s in
            guard s.pacer.due(at: now), let latest = s.capture?.latest, latest.serial > s.lastSerial else { return nil }
            s.lastSerial = latest.serial
            return latest.jpeg
        }
        guard var jpeg = frame else { return }
        if jpeg.count > ImageEncoder.budget, let fitted = try? ImageEncoder.fit(jpeg: jpeg, longestSide: resolution.longestSide) {
            jpeg = fitted.jpeg
        }
        guard send(jpeg) else { return }
        state.withLock { $0.pacer.sent(bytes: jpeg.count, at: now) }
    }

    private func startTicking() {
        ticker.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                while !Task.isCancelled {
                    self?.tick()
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    /// Stops capture and the ticker.
    func stop() { setSharing(false) }
}
