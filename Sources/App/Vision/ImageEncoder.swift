import Conversation
import FFmpeg
import Foundation
import Live

extension AttachedImage {
    /// Reads and encodes an image file (PNG, JPEG, WebP, GIF's first frame, anything ffmpeg decodes).
    static func load(_ path: String, resolution: MediaResolution) throws(ParleyError) -> AttachedImage {
        let expanded = (path as NSString).expandingTildeInPath
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: expanded),
            let size = attributes[.size] as? Int
        else { throw .file(path: path, problem: "no such image file") }
        guard FileManager.default.isReadableFile(atPath: expanded) else { throw .file(path: path, problem: "cannot read the image file") }
        let encoded = try ImageEncoder.encode(input: ["-i", expanded], longestSide: resolution.longestSide, describing: path)
        return AttachedImage(path: expanded, fileBytes: size, encoded: encoded)
    }
}

/// Encodes pictures as JPEG the way the seed did: start at quality 0.7 and step down by 0.1 until the JPEG is
/// under the budget (200 KB); ffmpeg does the decoding, scaling and encoding.
enum ImageEncoder {
    static let budget = 200_000
    static let startQuality = 0.7
    static let lowestQuality = 0.1

    /// ffmpeg's MJPEG `-q:v` (2 best … 31 worst) for a quality in 0…1.
    static func qscale(_ quality: Double) -> Int { max(2, min(31, Int((2 + (1 - quality) * 29).rounded()))) }

    /// The scale filter that fits the longer side into `longestSide`, never enlarging.
    static func fitFilter(_ longestSide: Int) -> String {
        "scale=w='min(iw,\(longestSide))':h='min(ih,\(longestSide))':force_original_aspect_ratio=decrease:flags=area"
    }

    /// Encodes the first frame of `input` (ffmpeg input arguments, e.g. `["-i", path]`).
    static func encode(
        input: [String], longestSide: Int, budget: Int = budget, describing what: String
    ) throws(ParleyError) -> EncodedImage {
        var quality = startQuality
        var side = longestSide
        while true {
            let jpeg: Data
            do {
                jpeg = try FFmpegRunner.run(
                    input + ["-frames:v", "1", "-vf", fitFilter(side), "-c:v", "mjpeg", "-q:v", "\(qscale(quality))", "-f", "image2pipe", "-"])
            } catch .missing {
                throw .usage(FFmpegError.missing.description)
            } catch {
                throw .file(path: what, problem: "not an image ffmpeg can read (\(error))")
            }
            guard let header = JPEGHeader(jpeg) else { throw .file(path: what, problem: "ffmpeg produced no picture") }
            if jpeg.count <= budget { return EncodedImage(jpeg: jpeg, width: header.width, height: header.height, quality: quality) }
            if quality - 0.1 >= lowestQuality - 1e-9 {
                quality -= 0.1
            } else if side > 64 {
                // Still too large at the lowest quality: halve the picture rather than send it over budget.
                side /= 2
            } else {
                return EncodedImage(jpeg: jpeg, width: header.width, height: header.height, quality: quality)
            }
        }
    }

    /// Re-encodes a JPEG that came out over budget (a detailed camera frame).
    static func fit(jpeg: Data, longestSide: Int, budget: Int = budget) throws(ParleyError) -> EncodedImage {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-frame-\(UUID().uuidString).jpg").path
        guard FileManager.default.createFile(atPath: path, contents: jpeg) else { throw .file(path: path, problem: "cannot write a temporary file") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try encode(input: ["-i", path], longestSide: longestSide, budget: budget, describing: "camera frame")
    }
}
