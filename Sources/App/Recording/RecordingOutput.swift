import Conversation
import Foundation
import FFmpeg
import ParleySpawn
import ParleyTime
import PulseAudio

#if canImport(Glibc)
import Glibc
#endif

extension RecordingFailure {
    /// A failed write or open of `path` with `errno` `code`.
    static func io(_ code: Int32, path: String, doing: String) -> RecordingFailure {
        switch code {
        case ENOSPC, EDQUOT:
            return RecordingFailure(message: "the recording stopped: the disk is full (\(path))",
                                    hint: "free some space; the transcript goes on being saved")
        case EACCES, EPERM, EROFS:
            return RecordingFailure(message: "cannot \(doing) the recording \(path): \(String(cString: strerror(code)))",
                                    hint: "make the transcript directory writable, or set transcript_dir")
        default:
            return RecordingFailure(message: "the recording stopped: cannot \(doing) \(path): \(String(cString: strerror(code)))",
                                    hint: "the transcript goes on being saved")
        }
    }
}

/// Where the recorder's interleaved 24 kHz stereo frames go: a file that is whole after `close()` (and, for a
/// WAV, after each `checkpoint()`). Called on the recorder's writer thread only.
protocol RecordingOutput: AnyObject {
    /// The file being written.
    var path: String { get }
    func write(_ interleaved: [Int16]) throws(RecordingFailure)
    /// Makes the file whole as it stands (a stop, a Ctrl-Z): what a kill meanwhile must not lose.
    func checkpoint()
    /// Finishes the file (header, trailer). Safe to call more than once.
    func close() throws(RecordingFailure)
}

/// The kinds of file a recording can be.
enum RecordingFormat: String, Sendable, CaseIterable {
    /// Ogg Opus when ffmpeg is there, WAV otherwise.
    case auto
    case opus
    case wav

    /// The output for a recording beside `base` (a transcript's path without `.jsonl`): `base.ogg` or
    /// `base.wav`, or `base-2.…` and on when a continued conversation already has a recording.
    func open(base: String) throws(RecordingFailure) -> any RecordingOutput {
        switch self {
        case .wav: return try WAVRecording(path: Self.free(base, "wav"))
        case .opus, .auto:
            if let ffmpeg = FFmpegRunner.locate() { return try OpusRecording(path: Self.free(base, "ogg"), ffmpeg: ffmpeg) }
            if self == .opus {
                throw RecordingFailure(message: "cannot record as Opus: ffmpeg is not installed",
                                       hint: "install ffmpeg, or set [recording] format = \"wav\"")
            }
            return try WAVRecording(path: Self.free(base, "wav"))
        }
    }

    static func free(_ base: String, _ ext: String) -> String {
        var path = "\(base).\(ext)", n = 1
        while FileManager.default.fileExists(atPath: path) {
            n += 1
            path = "\(base)-\(n).\(ext)"
        }
        return path
    }
}

/// A 16-bit PCM WAV written as the conversation goes: the header's sizes are put right every few seconds, on
/// `checkpoint()` and on `close()`, so a file cut short by a crash still plays up to its last checkpoint.
final class WAVRecording: RecordingOutput {
    let path: String
    private var fd: Int32
    private var dataBytes = 0
    private var sinceHeader = 0
    static let channels = 2
    /// Bytes of data between header updates (about two seconds).
    static let headerEvery = RecordingTimeline.rate * channels * 2 * 2

    init(path: String) throws(RecordingFailure) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(errno, path: path, doing: "create") }
        do {
            try put(Self.header(dataBytes: 0), at: 0)
        } catch {
            Glibc.close(fd)
            fd = -1
            unlink(path)
            throw error
        }
    }

    func write(_ interleaved: [Int16]) throws(RecordingFailure) {
        guard fd >= 0, !interleaved.isEmpty else { return }
        let bytes = interleaved.map(\.littleEndian).withUnsafeBytes { Array($0) }
        do {
            try put(bytes, at: off_t(44 + dataBytes))
        } catch {
            // Keep the file whole frames with a header that says so, then stop.
            _ = ftruncate(fd, off_t(44 + dataBytes))
            checkpoint()
            Glibc.close(fd)
            fd = -1
            throw error
        }
        dataBytes += bytes.count
        sinceHeader += bytes.count
        if sinceHeader >= Self.headerEvery { checkpoint() }
    }

    func checkpoint() {
        guard fd >= 0 else { return }
        sinceHeader = 0
        try? put(Self.header(dataBytes: dataBytes), at: 0)
    }

    func close() throws(RecordingFailure) {
        guard fd >= 0 else { return }
        defer { fd = -1 }
        do {
            try put(Self.header(dataBytes: dataBytes), at: 0)
        } catch {
            Glibc.close(fd)
            throw error
        }
        if fsync(fd) != 0, errno != EINVAL {
            let e = errno
            Glibc.close(fd)
            throw .io(e, path: path, doing: "finish")
        }
        Glibc.close(fd)
    }

    deinit { try? close() }

    private func put(_ bytes: [UInt8], at offset: off_t) throws(RecordingFailure) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pwrite(fd, base + done, raw.count - done, offset + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(errno, path: path, doing: "write")
            }
            if n == 0 { throw .io(ENOSPC, path: path, doing: "write") }
            done += n
        }
    }

    static func header(dataBytes: Int) -> [UInt8] {
        [UInt8](WAVFile.header(sampleRate: RecordingTimeline.rate, channels: channels, dataBytes: dataBytes))
    }
}

/// Ogg Opus through an ffmpeg child that reads raw PCM on its stdin. ffmpeg runs in its own session, so a
/// Ctrl-Z or a hang-up does not reach it; when parley goes, however it goes, ffmpeg reads the end of its input
/// and finishes the file.
final class OpusRecording: RecordingOutput {
    let path: String
    private let pid: pid_t
    private var input: Int32
    private let errors: Int32
    private var finished = false

    init(path: String, ffmpeg: String) throws(RecordingFailure) {
        self.path = path
        // Fail here, in words, rather than through ffmpeg's exit: an unwritable directory, a name taken.
        let probe = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard probe >= 0 else { throw .io(errno, path: path, doing: "create") }
        Glibc.close(probe)
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw .io(errno, path: path, doing: "start ffmpeg for") }
        guard pipe(&fromChild) == 0 else {
            toChild.forEach { Glibc.close($0) }
            throw .io(errno, path: path, doing: "start ffmpeg for")
        }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fromChild[0], F_SETFL, fcntl(fromChild[0], F_GETFL) | O_NONBLOCK)
        // A write to an ffmpeg that has gone must be an error, not a signal.
        signal(SIGPIPE, SIG_IGN)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes, flags: 0x80)  // POSIX_SPAWN_SETSID (glibc), not imported into Swift
        defer { posix_spawnattr_destroy(&attributes) }
        let rate = String(RecordingTimeline.rate)
        let args = [ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "s16le", "-ar", rate, "-ac", "2", "-i", "pipe:0",
                    "-c:a", "libopus", "-b:a", "64k", "-application", "voip", "-flush_packets", "1", path]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, ffmpeg, &actions, &attributes, &argv, environ)
        Glibc.close(toChild[0])
        Glibc.close(fromChild[1])
        guard rc == 0 else {
            Glibc.close(toChild[1])
            Glibc.close(fromChild[0])
            unlink(path)
            throw .io(rc, path: path, doing: "start ffmpeg for")
        }
        pid = child
        input = toChild[1]
        errors = fromChild[0]
    }

    func write(_ interleaved: [Int16]) throws(RecordingFailure) {
        guard input >= 0, !interleaved.isEmpty else { return }
        let ok = interleaved.withUnsafeBytes { writeAll(input, $0) }
        if !ok { throw finish() ?? .io(EPIPE, path: path, doing: "write") }
    }

    /// ffmpeg writes its pages as it goes (`-flush_packets`); nothing to put right.
    func checkpoint() {}

    func close() throws(RecordingFailure) {
        if let failure = finish() { throw failure }
    }

    deinit { _ = finish() }

    /// Ends ffmpeg's input, waits for it to write the trailer (at most 5 s), and says what went wrong.
    private func finish() -> RecordingFailure? {
        guard !finished else { return nil }
        finished = true
        if input >= 0 { Glibc.close(input); input = -1 }
        var status: Int32 = 0
        let deadline = TimeSource.monotonicSeconds() + 5
        var reaped = false
        while !reaped {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { reaped = true; break }
            if TimeSource.monotonicSeconds() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                reaped = true
                break
            }
            usleep(2_000)
        }
        var said = [UInt8](repeating: 0, count: 4096)
        let n = read(errors, &said, said.count)
        Glibc.close(errors)
        let text = n > 0 ? String(decoding: said[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        let exited = (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
        guard !exited else { return nil }
        if text.lowercased().contains("no space left") { return .io(ENOSPC, path: path, doing: "write") }
        let last = text.split(separator: "\n").last.map(String.init) ?? "ffmpeg failed (status \(status))"
        return RecordingFailure(message: "the recording stopped: ffmpeg: \(last) (\(path))",
                                hint: "the transcript goes on being saved; set [recording] format = \"wav\" to record without ffmpeg")
    }
}
