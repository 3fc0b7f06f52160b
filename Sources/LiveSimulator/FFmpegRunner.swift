import Foundation

/// ffmpeg as a subprocess, run to completion: the one codec tool parley and its simulator rely on (decoding
/// PNG/WebP/GIF/JPEG, scaling, encoding JPEG) rather than hand-written codecs.
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .failed("cannot start \(binary): \(error)")
        }
        let killer = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // stderr is small (-loglevel error); stdout is read to the end first so a large image cannot block.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = message.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.map(String.init)
            throw .failed(text ?? "ffmpeg stopped (status \(process.terminationStatus))")
        }
        return data
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
