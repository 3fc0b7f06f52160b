/// Everything that can go wrong with audio, each with a message for humans and a hint of what to do.
public enum PulseAudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No PulseAudio server answered at `server` (a server string or a socket path) within the timeout.
    case noServer(server: String, reason: String)
    /// The server refused or dropped us for another reason.
    case connectionFailed(server: String, reason: String)
    /// A named source or sink does not exist.
    case noSuchDevice(name: String, kind: DeviceKind)
    /// Opening a capture or playback stream failed.
    case streamOpenFailed(device: String?, kind: DeviceKind, reason: String)
    /// A read or write on an open stream failed (device gone, server died).
    case streamFailed(device: String?, kind: DeviceKind, reason: String)
    /// A server request took too long.
    case timedOut(operation: String, seconds: Double)
    /// Loading a PulseAudio module failed.
    case moduleLoadFailed(module: String, reason: String)
    /// The stream was already closed.
    case closed
    /// WebRTC's audio processing could not be created with these settings.
    case processingUnavailable(reason: String)
    /// WebRTC's audio processing rejected a frame.
    case processingFailed(reason: String)
    /// A WAV file could not be read or written.
    case wav(path: String, problem: WAVProblem)

    /// Whether an error concerns a source (capture) or a sink (playback).
    public enum DeviceKind: String, Sendable, Equatable {
        /// A capture device (microphone or monitor).
        case source
        /// A playback device (speaker).
        case sink
    }

    /// What is wrong with a WAV file.
    public enum WAVProblem: Sendable, Equatable {
        /// The file could not be opened or read.
        case unreadable(String)
        /// The file could not be created or written.
        case unwritable(String)
        /// No RIFF header.
        case notRIFF
        /// A RIFF file of another kind.
        case notWAVE
        /// No `fmt ` chunk.
        case missingFormat
        /// No `data` chunk.
        case missingData
        /// A chunk runs past the end of the file.
        case truncated
        /// Not PCM (3 is IEEE float, 6/7 are A-law/µ-law).
        case unsupportedEncoding(formatTag: Int)
        /// PCM of another sample size than 16 bits.
        case unsupportedBitDepth(Int)
        /// More than two channels.
        case unsupportedChannels(Int)
        /// A sample rate outside 1–384 kHz.
        case unsupportedRate(Int)
    }

    /// What went wrong, in one sentence.
    public var message: String {
        switch self {
        case let .noServer(server, reason):
            return "no PulseAudio server at \(server) (\(reason))"
        case let .connectionFailed(server, reason):
            return "PulseAudio at \(server) refused the connection (\(reason))"
        case let .noSuchDevice(name, kind):
            return "no PulseAudio \(kind.rawValue) named \"\(name)\""
        case let .streamOpenFailed(device, kind, reason):
            return "could not open the \(kind == .source ? "capture" : "playback") stream on "
                + "\(device.map { "\"\($0)\"" } ?? "the default \(kind.rawValue)") (\(reason))"
        case let .streamFailed(device, kind, reason):
            return "the \(kind == .source ? "capture" : "playback") stream on "
                + "\(device.map { "\"\($0)\"" } ?? "the default \(kind.rawValue)") failed (\(reason))"
        case let .timedOut(operation, seconds):
            return "PulseAudio did not answer \(operation) within \(formatSeconds(seconds))"
        case let .moduleLoadFailed(module, reason):
            return "could not load \(module) (\(reason))"
        case .closed:
            return "the audio stream is closed"
        case let .processingUnavailable(reason):
            return "the echo canceller could not be created (\(reason))"
        case let .processingFailed(reason):
            return "the echo canceller rejected a frame (\(reason))"
        case let .wav(path, problem):
            return "\(path) \(problem.message)"
        }
    }

    /// What the user can do about it.
    public var hint: String {
        switch self {
        case .noServer:
            return "start one (pulseaudio --start), or run with --no-audio"
        case .connectionFailed:
            return "check PULSE_SERVER and the server's access rules, or run with --no-audio"
        case let .noSuchDevice(_, kind):
            return "list devices with `parley devices` and pass a name to \(kind == .source ? "--mic" : "--speaker")"
        case let .streamOpenFailed(_, kind, _):
            return "check the device with `parley devices`, pick another with \(kind == .source ? "--mic" : "--speaker"), "
                + "or run with --no-audio"
        case .streamFailed:
            return "the device may have been unplugged; parley reopens the default device"
        case .timedOut:
            return "the server may be overloaded or stopped; restart it (pulseaudio -k; pulseaudio --start), "
                + "or run with --no-audio"
        case .moduleLoadFailed:
            return "run without --echo-cancel (half-duplex gating protects against echo), or install the module"
        case .closed:
            return "open the stream again"
        case .processingUnavailable:
            return "parley falls back to half-duplex gating; echo_cancel = \"pulse\" tries PulseAudio's canceller"
        case .processingFailed:
            return "the microphone is passed on unprocessed; report this with the log"
        case let .wav(path, problem):
            return problem.hint(path: path)
        }
    }

    /// The message and the hint, as printed to users: "message: hint".
    public var description: String { "\(message): \(hint)" }
}

extension PulseAudioError.WAVProblem {
    var message: String {
        switch self {
        case let .unreadable(reason): return "cannot be read (\(reason))"
        case let .unwritable(reason): return "cannot be written (\(reason))"
        case .notRIFF: return "is not a WAV file (no RIFF header)"
        case .notWAVE: return "is a RIFF file but not WAVE"
        case .missingFormat: return "has no fmt chunk"
        case .missingData: return "has no data chunk"
        case .truncated: return "is truncated"
        case let .unsupportedEncoding(tag):
            return tag == 3 ? "is 32-bit float: parley reads 16-bit PCM WAV"
                : "is not PCM (format tag \(tag)): parley reads 16-bit PCM WAV"
        case let .unsupportedBitDepth(bits): return "is \(bits)-bit PCM: parley reads 16-bit PCM WAV"
        case let .unsupportedChannels(n): return "has \(n) channels: parley reads mono or stereo WAV"
        case let .unsupportedRate(rate): return "has an unusable sample rate (\(rate) Hz)"
        }
    }

    func hint(path: String) -> String {
        let base = path.hasSuffix(".wav") ? String(path.dropLast(4)) : path
        let out = "\(base)-16bit.wav"
        switch self {
        case .unreadable: return "check the path and its permissions"
        case .unwritable: return "check that the directory exists and is writable"
        case .unsupportedBitDepth, .unsupportedEncoding:
            return "convert with sox \(path) -b 16 \(out)"
        case .unsupportedChannels:
            return "mix down with sox \(path) -c 1 \(out)"
        case .unsupportedRate:
            return "resample with sox \(path) -r 16000 \(out)"
        case .notRIFF, .notWAVE, .missingFormat, .missingData, .truncated:
            return "convert it with sox \(path) -b 16 \(out)"
        }
    }
}

func formatSeconds(_ s: Double) -> String {
    s < 1 ? "\(Int((s * 1000).rounded())) ms" : "\((s * 10).rounded() / 10) s"
}
