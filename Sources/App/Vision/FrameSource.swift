import Foundation
import TUI

/// A running source of camera or screen frames that keeps only the newest. `FrameCapture` (an ffmpeg child) is
/// the real one; tests stand in a source that makes frames on a clock they move, so the pacing rules are
/// checked without a process.
protocol FrameSource: AnyObject, Sendable {
    /// The newest frame and its serial number (increasing), if any came yet.
    var latest: (jpeg: Data, serial: Int)? { get }
    /// The newest side-pane picture, if any came yet.
    var thumbnail: Thumbnail? { get }
    /// Why the source stopped on its own (a camera unplugged, a device in use), once it has.
    var failure: String? { get }
    /// Stops the source; nothing is captured after it returns.
    func stop()
}

/// How a `FrameStreamer` gets its sources: whether one can start (what is missing, said with its fix) and
/// starting one.
struct FrameSources: Sendable {
    var check: @Sendable (CaptureInput) -> String?
    var start: @Sendable (CaptureInput, MediaResolution) throws(VisionUnavailable) -> any FrameSource

    /// ffmpeg reading the device, screen or test source.
    static let ffmpeg = FrameSources(
        check: { CaptureInput.check($0) },
        start: { input, resolution throws(VisionUnavailable) in try FrameCapture(input, resolution: resolution) })
}
