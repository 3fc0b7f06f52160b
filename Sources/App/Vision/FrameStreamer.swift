import Conversation
import Foundation
import ParleyLock
import TUI

/// Streams camera or screen frames to the conversation. ffmpeg runs only while frames are wanted (sharing on
/// and the user talking, or sharing on with `frames = "always"`), so nothing is captured while sharing is off
/// or the user is silent; a ``FramePacer`` lets a frame out at most once a second, and the ``VideoWire`` keeps
/// camera frames and attached images together within the service's one frame a second.
final class FrameStreamer: Sendable {
    private struct State {
        var pacer: FramePacer
        var capture: (any FrameSource)?
        var lastSerial = 0
        var problem: String?
    }

    let input: CaptureInput
    private let resolution: MediaResolution
    private let sources: FrameSources
    private let wire: VideoWire
    private let report: @Sendable (VisionStatus, Thumbnail?) -> Void
    private let state: Locked<State>
    private let ticker = Locked<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - wire: where frames go (`LiveSession.sendVideo`, paced with attached images).
    ///   - sources: where frames come from (ffmpeg; a fake on a hand-moved clock in tests).
    ///   - report: told the new status (and the sent frame's thumbnail) after each frame and each problem.
    init(input: CaptureInput, resolution: MediaResolution, timing: VisionSettings.FrameTiming, wire: VideoWire,
         sources: FrameSources = .ffmpeg, report: @escaping @Sendable (VisionStatus, Thumbnail?) -> Void = { _, _ in }) {
        self.input = input
        self.resolution = resolution
        self.sources = sources
        self.wire = wire
        self.report = report
        state = Locked(State(pacer: FramePacer(timing: timing, sharing: false)))
    }

    /// Turns sharing on or off. Off stops capture at once; on checks the device (a missing camera or ffmpeg is
    /// reported now, not at the first word) and captures as soon as frames are wanted.
    func setSharing(_ on: Bool) {
        if on, let problem = sources.check(input) {
            state.withLock { $0.problem = problem; $0.pacer.sharing = false }
            report(status, nil)
            return
        }
        state.withLock { $0.pacer.sharing = on; if on { $0.problem = nil } }
        follow()
        report(status, nil)
    }

    /// Push-to-talk held / released, or speech heard / ended in open mic.
    func setTalking(_ talking: Bool) {
        state.withLock { $0.pacer.talking = talking }
        follow()
    }

    /// Whether the source (ffmpeg) is running now.
    var capturing: Bool { state.withLock { $0.capture != nil } }

    /// Whether the capture holds a frame newer than the last one sent (what `tick` would send when due).
    var hasUnsentFrame: Bool { state.withLock { s in (s.capture?.latest?.serial ?? 0) > s.lastSerial } }

    var status: VisionStatus {
        state.withLock { s in
            VisionStatus(source: input.label, sharing: s.pacer.sharing, capturing: s.capture != nil, framesSent: s.pacer.framesSent,
                         bytesPerFrame: s.pacer.bytesPerFrame, problem: s.problem)
        }
    }

    /// Starts or stops capture to match whether frames are wanted now.
    private func follow() {
        var failed = false
        let stopping: (any FrameSource)? = state.withLock { (s: inout State) -> (any FrameSource)? in
            if s.pacer.wantsFrames {
                guard s.capture == nil else { return nil }
                do {
                    s.capture = try sources.start(input, resolution)
                    s.lastSerial = 0
                } catch {
                    s.problem = "\(error)"
                    s.pacer.sharing = false
                    failed = true
                }
                return nil
            }
            defer { s.capture = nil }
            return s.capture
        }
        stopping?.stop()
        if capturing { startTicking() } else { ticker.withLock { $0?.cancel(); $0 = nil } }
        if failed { report(status, nil) }
    }

    /// Sends the newest frame if one is due; called every 100 ms while capturing.
    func tick() {
        let now = wire.now()
        var problem: String?
        let due: (jpeg: Data, capture: any FrameSource)? = state.withLock { s in
            guard let capture = s.capture else { return nil }
            if let failure = capture.failure {
                s.problem = failure
                s.pacer.sharing = false
                problem = failure
                return nil
            }
            guard s.pacer.due(at: now), let latest = capture.latest, latest.serial > s.lastSerial else { return nil }
            s.lastSerial = latest.serial
            return (latest.jpeg, capture)
        }
        if problem != nil {
            follow()
            report(status, nil)
            return
        }
        guard let due else { return }
        var jpeg = due.jpeg
        if jpeg.count > ImageEncoder.budget, let fitted = try? ImageEncoder.fit(jpeg: jpeg, longestSide: resolution.longestSide) {
            jpeg = fitted.jpeg
        }
        guard wire.send(jpeg, at: now) else { return }
        state.withLock { $0.pacer.sent(bytes: jpeg.count, at: now) }
        report(status, due.capture.thumbnail)
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
    func stop() {
        state.withLock { $0.pacer.sharing = false }
        follow()
    }
}
