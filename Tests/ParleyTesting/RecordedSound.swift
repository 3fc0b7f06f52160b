import Foundation
import XCTest

/// Looking at a recorded conversation's sound: 24 kHz stereo, the mic left and the model right.
public enum RecordedSound {
    /// One channel (0 left, 1 right) of interleaved stereo.
    public static func channel(_ interleaved: [Int16], _ c: Int) -> [Int16] {
        stride(from: c, to: interleaved.count, by: 2).map { interleaved[$0] }
    }

    /// The first frame where `samples` is louder than `level`, nil if never.
    public static func firstSound(_ samples: [Int16], above level: Int16 = 1000) -> Int? {
        samples.firstIndex { abs(Int($0)) > Int(level) }
    }
}

/// ffmpeg and ffprobe on PATH, and what ffprobe says of a file.
public enum FFmpegLocator {
    public static var ffmpeg: String? { find("ffmpeg") }
    public static var ffprobe: String? { find("ffprobe") }

    public static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public struct Probe { public var channels: Int; public var codec: String; public var duration: Double }

    public static func probe(_ path: String) throws -> Probe {
        guard let ffprobe else { throw XCTSkip("no ffprobe") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffprobe)
        p.arguments = ["-v", "error", "-show_entries", "stream=channels,codec_name:format=duration", "-of", "default=nw=1", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { fields[kv[0]] = kv[1] }
        }
        guard p.terminationStatus == 0, let ch = fields["channels"].flatMap(Int.init), let codec = fields["codec_name"],
              let d = fields["duration"].flatMap(Double.init)
        else { throw NSError(domain: "ffprobe", code: Int(p.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "ffprobe: \(fields)"]) }
        return Probe(channels: ch, codec: codec, duration: d)
    }

    /// Decodes a file to 24 kHz stereo s16 samples (interleaved).
    public static func decode(_ path: String) throws -> [Int16] {
        guard let ffmpeg else { throw XCTSkip("no ffmpeg") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-v", "error", "-i", path, "-f", "s16le", "-ar", "24000", "-ac", "2", "pipe:1"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}
