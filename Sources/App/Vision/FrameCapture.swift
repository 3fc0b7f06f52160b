import Foundation
import ParleySpawn
import Live
import LiveSimulator
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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

    /// One of ffmpeg's synthetic sources (`testsrc`), read at its own rate like a device.
    static func synthetic(_ spec: String = "testsrc=size=640x480:rate=5") -> CaptureInput {
        CaptureInput(label: "test source", arguments: ["-re", "-f", "lavfi", "-i", spec])
    }

    /// Checks that the device or display exists, naming what is missing and how to fix it.
    static func check(_ input: CaptureInput, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if FFmpegRunner.locate(environment: environment) == nil { return FFmpegError.missing.description }
        if input.arguments.contains("v4l2"), let device = input.arguments.last, !FileManager.default.fileExists(atPath: device) {
            return "no camera at \(device): plug one in or name it with --camera DEVICE (see v4l2-ctl --list-devices)"
        }
        return nil
    }

    /// The screen of the session: X11 when DISPLAY is set; Wayland sessions need XWayland's DISPLAY.
    static func screen(environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<CaptureInput, VisionUnavailable> {
        if let display = environment["DISPLAY"], !display.isEmpty { return .success(.x11Screen(display)) }
        if environment["WAYLAND_DISPLAY"] != nil {
            return .failure(VisionUnavailable("screen sharing on Wayland is not supported yet: run parley where DISPLAY is set (XWayland)"))
        }
        return .failure(VisionUnavailable("no screen to share: DISPLAY is not set (screen sharing needs an X11 session)"))
    }
}

/// Why frames cannot be captured; the conversation goes on without them.
struct VisionUnavailable: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A running ffmpeg that turns a camera or screen into JPEG frames, scaled for the media resolution, twice a
/// second; it keeps only the newest frame. It runs only while sharing is on (nothing is captured otherwise).
final class FrameCapture: Sendable {
    /// Shared with the reader thread.
    private final class Shared: Sendable {
        struct State {
            var latest: (jpeg: Data, serial: Int)?
            var error: String?
        }
        let lock = Mutex(State())
    }

    let input: CaptureInput
    private let pid: pid_t
    private let shared = Shared()

    /// Starts ffmpeg; throws when it cannot be started.
    init(_ input: CaptureInput, resolution: MediaResolution) throws(VisionUnavailable) {
        if let problem = CaptureInput.check(input) { throw VisionUnavailable(problem) }
        guard let binary = FFmpegRunner.locate() else { throw VisionUnavailable(FFmpegError.missing.description) }
        self.input = input
        let args = [binary, "-nostdin", "-hide_banner", "-loglevel", "error"] + input.arguments + [
            "-vf", "fps=2," + ImageEncoder.fitFilter(resolution.longestSide), "-c:v", "mjpeg",
            "-q:v", "\(ImageEncoder.qscale(ImageEncoder.startQuality))", "-f", "image2pipe", "-",
        ]
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw VisionUnavailable("cannot create a pipe for ffmpeg") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, binary, &actions, &attributes, &argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw VisionUnavailable("cannot start \(binary) (error \(rc))")
        }
        pid = child
        let fd = fds[0]
        let shared = self.shared
        let reader = Thread {
            var splitter = JPEGStreamSplitter()
            var serial = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                for frame in splitter.push(buffer[0..<n]) {
                    serial += 1
                    shared.lock.withLock { $0.latest = (frame, serial) }
                }
            }
            close(fd)
            shared.lock.withLock { if $0.latest == nil { $0.error = "\(input.label): ffmpeg produced no frames" } }
        }
        reader.start()
    }

    /// The newest frame and its serial number (increasing), if any came yet.
    var latest: (jpeg: Data, serial: Int)? { shared.lock.withLock { $0.latest } }

    /// Stops ffmpeg and reaps it.
    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// Cuts ffmpeg's image2pipe MJPEG stream into whole JPEGs (SOI … EOI; 0xFF is stuffed in entropy-coded data, so
/// EOI cannot occur inside a frame that ffmpeg wrote).
struct JPEGStreamSplitter {
    private var pending: [UInt8] = []

    mutating func push(_ bytes: ArraySlice<UInt8>) -> [Data] {
        pending.append(contentsOf: bytes)
        var frames: [Data] = []
        var start = 0
        var i = 1
        while i < pending.count {
            if pending[i - 1] == 0xFF, pending[i] == 0xD9 {
                frames.append(Data(pending[start...i]))
                start = i + 1
                i += 2
                continue
            }
            i += 1
        }
        pending.removeFirst(start)
        return frames
    }
}
