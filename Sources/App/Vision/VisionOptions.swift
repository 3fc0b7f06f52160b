import ArgumentParser

/// The interactive app's camera and screen flags.
struct VisionOptions: ParsableArguments {
    @Option(name: .customLong("camera"), help: ArgumentHelp(
        "Share a V4L2 camera while you talk; the device may be left out (/dev/video0, or [vision] camera); `test` is ffmpeg's test pattern. c turns it off and on.",
        valueName: "device"))
    var camera: String?

    @Flag(name: .customLong("screen"), help: "Share the screen (X11, or Wayland through the desktop portal). c turns it off and on.")
    var screen = false

    @Option(name: .customLong("frames"), help: ArgumentHelp(
        "When camera or screen frames go out: talking (push-to-talk held, or speech heard) or always (once a second).",
        valueName: "talking|always"))
    var frames: String?

    @Option(name: .customLong("turn-coverage"), help: ArgumentHelp(
        "What the model takes into a turn: activity (what is sent while you talk) or all (everything sent).",
        valueName: "activity|all"))
    var turnCoverage: String?

    /// `--camera` with no device: the configured one.
    static let configuredCamera = "default"

    func validate() throws {
        if camera != nil, screen { throw ValidationError("give --camera or --screen, not both") }
        if let frames, VisionSettings.FrameTiming(rawValue: frames.lowercased()) == nil {
            throw ValidationError("--frames must be talking or always (got \(frames))")
        }
        if let turnCoverage, TurnCoverage(rawValue: turnCoverage.lowercased()) == nil {
            throw ValidationError("--turn-coverage must be activity or all (got \(turnCoverage))")
        }
    }

    /// The vision settings with these flags applied.
    func apply(to settings: inout VisionSettings) {
        if let camera {
            settings.source = .camera
            if camera != Self.configuredCamera { settings.cameraDevice = camera }
        }
        if screen { settings.source = .screen }
        if let frames, let f = VisionSettings.FrameTiming(rawValue: frames.lowercased()) { settings.frames = f }
        if let turnCoverage, let c = TurnCoverage(rawValue: turnCoverage.lowercased()) { settings.turnCoverage = c }
    }

    /// Lets `--camera` stand without a device (`parley --camera --demo`): a bare `--camera` (last, or followed
    /// by another option) becomes `--camera=default`, which means the configured device.
    static func normalized(_ arguments: [String]) -> [String] {
        var out: [String] = []
        for (i, a) in arguments.enumerated() {
            if a == "--camera", i + 1 == arguments.count || arguments[i + 1].hasPrefix("-") {
                out.append("--camera=\(configuredCamera)")
            } else {
                out.append(a)
            }
        }
        return out
    }
}
