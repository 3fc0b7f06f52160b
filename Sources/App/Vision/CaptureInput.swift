import FFmpeg
import Foundation

/// Where frames come from, as ffmpeg input arguments, so tests can stand a synthetic source in for a device.
struct CaptureInput: Sendable, Equatable {
    /// Shown in the header, e.g. `camera /dev/video0`.
    var label: String
    var arguments: [String]

    /// A V4L2 camera.
    static func camera(_ device: String) -> CaptureInput { CaptureInput(label: "camera \(device)", arguments: ["-f", "v4l2", "-i", device]) }

    /// The X11 screen of `display` (e.g. `:0`).
    static func x11Screen(_ display: String) -> CaptureInput {
        CaptureInput(label: "screen \(display)", arguments: ["-f", "x11grab", "-framerate", "2", "-i", display])
    }

    /// A Wayland screen through the xdg-desktop-portal ScreenCast (the desktop asks which screen or window to
    /// share), read by ffmpeg's `pipewiregrab` source.
    static let waylandScreen = CaptureInput(label: "screen (Wayland portal)", arguments: ["-f", "lavfi", "-i", "pipewiregrab=framerate=2"])

    /// One of ffmpeg's synthetic sources (`testsrc`), read at its own rate like a device.
    static func synthetic(_ spec: String = "testsrc=size=640x480:rate=5") -> CaptureInput {
        CaptureInput(label: "test source", arguments: ["-re", "-f", "lavfi", "-i", spec])
    }

    /// Checks that ffmpeg and the device exist, naming what is missing and how to fix it.
    static func check(_ input: CaptureInput, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if FFmpegRunner.locate(environment: environment) == nil { return FFmpegError.missing.description }
        if input.arguments.contains("v4l2"), let device = input.arguments.last, !FileManager.default.fileExists(atPath: device) {
            return "no camera at \(device): plug one in or name it with --camera DEVICE (see v4l2-ctl --list-devices)"
        }
        return nil
    }

    /// The screen of the session: X11 (x11grab) when DISPLAY is set, else Wayland through the desktop portal
    /// when this ffmpeg has `pipewiregrab`; otherwise why neither works.
    static func screen(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        hasPipewireGrab: () -> Bool = { FFmpegFeatures.has(filter: "pipewiregrab") }
    ) -> Result<CaptureInput, VisionUnavailable> {
        if let display = environment["DISPLAY"], !display.isEmpty { return .success(.x11Screen(display)) }
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            guard hasPipewireGrab() else {
                return .failure(VisionUnavailable(
                    "screen sharing on Wayland needs ffmpeg's pipewiregrab source (the xdg-desktop-portal ScreenCast), which this ffmpeg lacks: install an ffmpeg built with libpipewire (FFmpeg 7.1 or later), or run parley where DISPLAY is set (XWayland)"))
            }
            return .success(.waylandScreen)
        }
        return .failure(VisionUnavailable("no screen to share: neither DISPLAY (X11) nor WAYLAND_DISPLAY is set"))
    }
}

/// What the installed ffmpeg was built with, asked once.
enum FFmpegFeatures {
    private static let filters: String = (try? FFmpegRunner.run(["-filters"], timeout: 10)).map { String(decoding: $0, as: UTF8.self) } ?? ""

    /// Whether ffmpeg has a filter (or lavfi source) of this name.
    static func has(filter name: String) -> Bool {
        filters.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == name }
    }
}
