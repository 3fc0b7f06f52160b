import FFmpeg
import Foundation
import Live

/// A recorded clip made ready for the Live API: one JPEG a second (scaled for the media resolution, within the
/// size budget) and its audio track as 16 kHz mono s16le, both decoded by ffmpeg.
struct VideoClip: Sendable {
    var path: String
    var frames: [Data]
    var width: Int
    var height: Int
    /// 16 kHz mono s16le; empty when the clip has no sound.
    var audio: Data

    var fileName: String { (path as NSString).lastPathComponent }

    /// Whole seconds the clip takes to stream in real time (its frames or its audio, whichever is longer).
    var seconds: Int {
        let audioSeconds = (audio.count + LiveAudioFormat.inputSampleRate * 2 - 1) / (LiveAudioFormat.inputSampleRate * 2)
        return max(frames.count, audioSeconds)
    }

    /// The line `ask` prints: file name, frames, their size, the sound.
    var summary: String {
        let sound = audio.isEmpty ? "no sound" : String(format: "%.1f s of sound", Double(audio.count) / Double(LiveAudioFormat.inputSampleRate * 2))
        return "\(fileName) (\(frames.count) frame\(frames.count == 1 ? "" : "s") at 1 fps, \(width)×\(height), \(sound))"
    }

    static func load(_ path: String, resolution: MediaResolution) throws(ParleyError) -> VideoClip {
        let expanded = (path as NSString).expandingTildeInPath
        guard FileManager.default.isReadableFile(atPath: expanded) else { throw .file(path: path, problem: "no such video file (or it cannot be read)") }
        let stream: Data
        do {
            stream = try FFmpegRunner.run(
                ["-i", expanded, "-map", "0:v:0", "-vf", "fps=1," + ImageEncoder.fitFilter(resolution.longestSide), "-c:v", "mjpeg",
                 "-q:v", "\(ImageEncoder.qscale(ImageEncoder.startQuality))", "-f", "image2pipe", "-"], timeout: 300)
        } catch .missing {
            throw .usage(FFmpegError.missing.description)
        } catch {
            throw .file(path: path, problem: "not a video ffmpeg can read (\(error))")
        }
        var splitter = JPEGStreamSplitter()
        var frames: [Data] = []
        for jpeg in splitter.push(ArraySlice([UInt8](stream))) {
            frames.append(jpeg.count > ImageEncoder.budget ? (try ImageEncoder.fit(jpeg: jpeg, longestSide: resolution.longestSide)).jpeg : jpeg)
        }
        guard let first = frames.first, let header = JPEGHeader(first) else { throw .file(path: path, problem: "the video has no pictures") }
        // `0:a:0?`: a clip without sound gives no output stream, which ffmpeg reports as a failure.
        let audio = (try? FFmpegRunner.run(
            ["-i", expanded, "-map", "0:a:0?", "-vn", "-ac", "1", "-ar", "\(LiveAudioFormat.inputSampleRate)", "-f", "s16le", "-"], timeout: 300)) ?? Data()
        return VideoClip(path: expanded, frames: frames, width: header.width, height: header.height, audio: audio)
    }
}
