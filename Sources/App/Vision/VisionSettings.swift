import Live
import TOMLKit

/// The `[vision]` settings: how pictures are sized and when the camera or screen is sent.
struct VisionSettings: Sendable, Equatable {
    /// When frames go out while sharing is on.
    enum FrameTiming: String, Sendable, CaseIterable {
        /// Only while the user talks (push-to-talk held, or speech heard in open mic).
        case talking
        /// Every second while sharing is on.
        case always
    }

    /// What the interactive app shares (`--camera`, `--screen`, or `share = "camera"`).
    enum Source: String, Sendable, CaseIterable {
        case camera, screen
    }

    /// nil: the model's default; pictures are then scaled for ``MediaResolution/medium``.
    var mediaResolution: MediaResolution?
    var turnCoverage: TurnCoverage?
    var frames = FrameTiming.talking
    /// The V4L2 device for `--camera` without a device; `test` is ffmpeg's test pattern (no camera needed).
    var cameraDevice = "/dev/video0"
    /// The camera or the screen, shared from the start (`c` turns it off and on); nil: neither.
    var source: Source?

    /// The ffmpeg input for ``source``: nil without one, or why it cannot be had (no screen in this session).
    func captureInput(environment: [String: String]) -> Result<CaptureInput, VisionUnavailable>? {
        switch source {
        case nil: return nil
        case .camera?: return .success(cameraDevice == "test" ? .synthetic() : .camera(cameraDevice))
        case .screen?: return CaptureInput.screen(environment: environment)
        }
    }

    /// The resolution pictures are scaled for.
    var effectiveResolution: MediaResolution { mediaResolution ?? .medium }

    mutating func apply(_ t: TOMLTable, reader: ConfigReader) throws {
        let s = "vision"
        if let v = try reader.string(t, "media_resolution", section: s) {
            guard let r = MediaResolution(rawValue: v.lowercased()) else { throw reader.error("media_resolution", "must be \"low\", \"medium\" or \"high\"", section: s) }
            mediaResolution = r
        }
        if let v = try reader.string(t, "turn_coverage", section: s) {
            guard let c = TurnCoverage(rawValue: v.lowercased()) else { throw reader.error("turn_coverage", "must be \"activity\" or \"all\"", section: s) }
            turnCoverage = c
        }
        if let v = try reader.string(t, "frames", section: s) {
            guard let f = FrameTiming(rawValue: v.lowercased()) else { throw reader.error("frames", "must be \"talking\" or \"always\"", section: s) }
            frames = f
        }
        if let v = try reader.string(t, "camera", section: s) { cameraDevice = v }
        if let v = try reader.string(t, "share", section: s) {
            guard v.lowercased() == "none" || Source(rawValue: v.lowercased()) != nil else {
                throw reader.error("share", "must be \"camera\", \"screen\" or \"none\"", section: s)
            }
            source = Source(rawValue: v.lowercased())
        }
    }

    /// Adds the media resolution and turn coverage to a setup.
    func apply(to setup: inout Setup) {
        if let mediaResolution {
            var g = setup.generationConfig ?? GenerationConfig()
            g.mediaResolution = mediaResolution.wireValue
            setup.generationConfig = g
        }
        if let turnCoverage {
            var r = setup.realtimeInputConfig ?? RealtimeInputConfig()
            r.turnCoverage = turnCoverage.wireValue
            setup.realtimeInputConfig = r
        }
    }

    /// The `[vision]` section of the printed configuration.
    var printed: [String] {
        var lines = ["\n[vision]"]
        if let mediaResolution { lines.append("media_resolution = \"\(mediaResolution.rawValue)\"") }
        if let turnCoverage { lines.append("turn_coverage = \"\(turnCoverage.rawValue)\"") }
        lines.append("frames = \"\(frames.rawValue)\"")
        lines.append("camera = \"\(cameraDevice)\"")
        lines.append("share = \"\(source?.rawValue ?? "none")\"")
        return lines
    }
}
