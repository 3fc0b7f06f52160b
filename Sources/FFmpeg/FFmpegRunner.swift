import Foundation
import ParleySpawn

/// ffmpeg as a subprocess, run to completion through ParleySpawn (clean signals, its own process group): the
/// one codec tool parley and its simulator rely on (decoding PNG/WebP/GIF/JPEG, scaling, encoding JPEG)
/// rather than hand-written codecs.
public enum FFmpegRunner {
    /// The Debian package that provides `ffmpeg` and `ffprobe`.
    public static let package = "ffmpeg"

    /// The full path of `tool` on `PATH`, or nil when it is not installed.
    public static func locate(_ tool: String = "ffmpeg", environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs ffmpeg with `arguments` (after `-nostdin -hide_banner -loglevel error`) and returns its standard
    /// output. Throws when ffmpeg is missing, fails, or runs past `timeout` seconds.
    public static func run(_ arguments: [String], timeout: Double = 30) throws(FFmpegError) -> Data {
        guard let binary = locate() else { throw .missing }
        let result: CommandRun.Output
        do {
            result = try CommandRun.run([binary, "-nostdin", "-hide_banner", "-loglevel", "error"] + arguments, timeout: timeout)
        } catch {
            throw .failed(error.description)
        }
        if result.timedOut { throw .failed("ffmpeg ran past \(Int(timeout)) s and was stopped") }
        guard result.status == 0 else {
            let message = String(decoding: result.stderr, as: UTF8.self)
            let text = message.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.map(String.init)
            throw .failed(text ?? "ffmpeg stopped (status \(result.status))")
        }
        return result.stdout
    }
}

/// ffmpeg is missing or could not do what was asked.
public enum FFmpegError: Error, Equatable, CustomStringConvertible {
    case missing
    case failed(String)

    public var description: String {
        switch self {
        case .missing: "ffmpeg is not installed: install the \(FFmpegRunner.package) package (sudo apt-get install \(FFmpegRunner.package)) for images, the camera and the screen"
        case .failed(let why): "ffmpeg: \(why)"
        }
    }
}
