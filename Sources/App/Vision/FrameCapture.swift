import FFmpeg
import Foundation
import Live
import ParleySpawn
import ParleyLock
import TUI
#if canImport(Glibc)
import Glibc
#endif

/// A running ffmpeg that turns a camera or screen into JPEG frames, scaled for the media resolution, twice a
/// second, plus a 32-pixel-wide picture of each for the side pane (a second output of the same ffmpeg, so a
/// thumbnail costs no extra decoding). It keeps only the newest of each. The streamer runs it only while
/// frames are wanted, so nothing is captured otherwise.
final class FrameCapture: FrameSource {
    /// Shared with the reader thread.
    private final class Shared: Sendable {
        struct State {
            var latest: (jpeg: Data, serial: Int)?
            var thumbnail: Thumbnail?
            /// ffmpeg's last complaint, if it said anything.
            var lastError: String?
            var ended = false
        }
        let lock = Locked(State())
    }

    /// Pixels across of the side-pane picture.
    static let thumbnailWidth = 32

    let input: CaptureInput
    private let pid: pid_t
    private let shared = Shared()

    /// Starts ffmpeg; throws when it cannot be started.
    init(_ input: CaptureInput, resolution: MediaResolution) throws(VisionUnavailable) {
        if let problem = CaptureInput.check(input) { throw VisionUnavailable(problem) }
        guard let binary = FFmpegRunner.locate() else { throw VisionUnavailable(FFmpegError.missing.description) }
        self.input = input
        let graph = "[0:v]fps=2,\(ImageEncoder.fitFilter(resolution.longestSide)),split=2[send][small];"
            + "[small]scale=\(Self.thumbnailWidth):-2:flags=area[thumb]"
        let args = [binary, "-nostdin", "-hide_banner", "-loglevel", "error"] + input.arguments + [
            "-filter_complex", graph,
            "-map", "[send]", "-c:v", "mjpeg", "-q:v", "\(ImageEncoder.qscale(ImageEncoder.startQuality))", "-f", "image2pipe", "pipe:1",
            "-map", "[thumb]", "-c:v", "ppm", "-f", "image2pipe", "pipe:3",
        ]
        guard let frames = Self.pipeClosedOnExec() else { throw VisionUnavailable("cannot create a pipe for ffmpeg") }
        guard let thumbs = Self.pipeClosedOnExec() else {
            frames.forEach { close($0) }
            throw VisionUnavailable("cannot create a pipe for ffmpeg")
        }
        guard let errors = Self.pipeClosedOnExec() else {
            (frames + thumbs).forEach { close($0) }
            throw VisionUnavailable("cannot create a pipe for ffmpeg")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, frames[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        posix_spawn_file_actions_adddup2(&actions, thumbs[1], 3)
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, binary, &actions, &attributes, &argv, environ)
        for fd in [frames[1], thumbs[1], errors[1]] { close(fd) }
        guard rc == 0 else {
            for fd in [frames[0], thumbs[0], errors[0]] { close(fd) }
            throw VisionUnavailable("cannot start \(binary) (error \(rc))")
        }
        pid = child
        let shared = self.shared
        let label = input.label
        let (frameFD, thumbFD, errorFD) = (frames[0], thumbs[0], errors[0])
        let reader = Thread { Self.read(frames: frameFD, thumbnails: thumbFD, errors: errorFD, into: shared, label: label) }
        reader.start()
    }

    /// A pipe whose ends other children do not inherit (the spawn's dup2 gives ffmpeg its own copies).
    private static func pipeClosedOnExec() -> [Int32]? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fds
    }

    /// Reads ffmpeg's three outputs until it exits: frames, thumbnails, and what it says went wrong.
    private static func read(frames: Int32, thumbnails: Int32, errors: Int32, into shared: Shared, label: String) {
        var jpegs = JPEGStreamSplitter()
        var ppms = PPMStreamSplitter()
        var complaint = Data()
        var serial = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        var fds = [pollfd(fd: frames, events: Int16(POLLIN), revents: 0), pollfd(fd: thumbnails, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
        var open = 3
        while open > 0 {
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = Glibc.read(fds[i].fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    close(fds[i].fd)
                    fds[i].fd = -1
                    open -= 1
                    continue
                }
                let bytes = buffer[0..<n]
                switch i {
                case 0:
                    for frame in jpegs.push(bytes) {
                        serial += 1
                        shared.lock.withLock { $0.latest = (frame, serial) }
                    }
                case 1:
                    for picture in ppms.push(bytes) {
                        let thumb = Thumbnail(width: picture.width, height: picture.height, rgb: picture.rgb, caption: label)
                        shared.lock.withLock { $0.thumbnail = thumb }
                    }
                default:
                    complaint.append(contentsOf: bytes.suffix(2048))
                }
            }
        }
        let said = String(decoding: complaint, as: UTF8.self).split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) }
        shared.lock.withLock { s in
            s.ended = true
            if let said, !said.isEmpty { s.lastError = said } else if s.latest == nil { s.lastError = "ffmpeg produced no frames" }
        }
    }

    /// The newest frame and its serial number (increasing), if any came yet.
    var latest: (jpeg: Data, serial: Int)? { shared.lock.withLock { $0.latest } }

    /// The newest side-pane picture, if any came yet.
    var thumbnail: Thumbnail? { shared.lock.withLock { $0.thumbnail } }

    /// Why ffmpeg stopped on its own (a camera unplugged, a device in use), once it has.
    var failure: String? {
        shared.lock.withLock { s in s.ended ? "\(input.label) stopped: \(s.lastError ?? "ffmpeg ended")" : nil }
    }

    /// Stops ffmpeg and reaps it.
    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
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

/// Cuts a stream of binary PPM pictures (`P6 W H 255`, then W×H×3 bytes) as ffmpeg's `ppm` encoder writes them.
struct PPMStreamSplitter {
    struct Picture: Equatable {
        var width: Int
        var height: Int
        var rgb: [UInt8]
    }

    private var pending: [UInt8] = []

    mutating func push(_ bytes: ArraySlice<UInt8>) -> [Picture] {
        pending.append(contentsOf: bytes)
        var pictures: [Picture] = []
        while let (header, width, height) = Self.header(pending) {
            let size = width * height * 3
            guard pending.count >= header + size else { break }
            pictures.append(Picture(width: width, height: height, rgb: Array(pending[header..<(header + size)])))
            pending.removeFirst(header + size)
        }
        return pictures
    }

    /// The largest width or height (and the 255 of 8-bit samples) a header may give.
    static let maxSide = 1 << 15

    /// The header's length and the picture's size, once the whole header is there.
    private static func header(_ b: [UInt8]) -> (Int, Int, Int)? {
        guard b.count >= 2, b[0] == UInt8(ascii: "P"), b[1] == UInt8(ascii: "6") else { return nil }
        var fields: [Int] = []
        var i = 2
        while fields.count < 3 {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
            var value = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                value = value * 10 + Int(b[i] - 0x30)
                digits += 1
                i += 1
                // Wider than any picture: not a header (and more digits would overflow).
                guard value <= maxSide else { return nil }
            }
            guard i < b.count, digits > 0 else { return nil }
            fields.append(value)
        }
        // One whitespace byte ends the header; 8-bit samples only (ffmpeg writes 255 for rgb24).
        guard fields[2] == 255, fields[0] > 0, fields[1] > 0 else { return nil }
        return (i + 1, fields[0], fields[1])
    }
}
