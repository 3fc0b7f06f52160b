import FFmpeg
import Foundation
import Live
import TUI

/// Turns the last JPEG sent into a ``Thumbnail`` for the side pane (ffmpeg decodes and shrinks it).
enum ThumbnailDecoder {
    /// Pixels across; the height keeps the aspect ratio.
    static let width = 32

    static func decode(_ jpeg: Data, caption: String) -> Thumbnail? {
        guard let header = JPEGHeader(jpeg) else { return nil }
        let w = min(width, header.width)
        let h = max(1, Int((Double(header.height) * Double(w) / Double(header.width)).rounded()))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-thumb-\(UUID().uuidString).jpg").path
        guard FileManager.default.createFile(atPath: path, contents: jpeg) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let rgb = try? FFmpegRunner.run(["-i", path, "-vf", "scale=\(w):\(h):flags=area", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]),
            rgb.count == w * h * 3
        else { return nil }
        return Thumbnail(width: w, height: h, rgb: [UInt8](rgb), caption: caption)
    }
}
