import FFmpeg
import Foundation

/// The average colour of an image and the plain name for it: what the simulator can honestly say about a
/// picture it was shown.
public struct FrameColour: Sendable, Equatable {
    public var r: Int
    public var g: Int
    public var b: Int

    public init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `#rrggbb`.
    public var hex: String { String(format: "#%02x%02x%02x", r, g, b) }

    /// The nearest of a few everyday colour names.
    public var name: String {
        let named: [(String, Int, Int, Int)] = [
            ("black", 0, 0, 0), ("white", 255, 255, 255), ("grey", 128, 128, 128), ("red", 255, 0, 0),
            ("green", 0, 160, 0), ("blue", 0, 0, 255), ("yellow", 255, 255, 0), ("cyan", 0, 255, 255),
            ("magenta", 255, 0, 255), ("orange", 255, 140, 0), ("purple", 128, 0, 128), ("brown", 140, 80, 20),
            ("pink", 255, 170, 190), ("dark blue", 0, 0, 128), ("dark green", 0, 90, 0), ("dark red", 128, 0, 0),
        ]
        func distance(_ c: (String, Int, Int, Int)) -> Int {
            let dr = r - c.1, dg = g - c.2, db = b - c.3
            return 2 * dr * dr + 4 * dg * dg + 3 * db * db
        }
        return named.min { distance($0) < distance($1) }?.0 ?? "grey"
    }

    /// Decodes `jpeg` with ffmpeg and averages it down to one pixel.
    public static func average(ofJPEG jpeg: Data) throws(FFmpegError) -> FrameColour {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-frame-\(UUID().uuidString).jpg").path
        guard FileManager.default.createFile(atPath: path, contents: jpeg) else { throw .failed("cannot write \(path)") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rgb = try FFmpegRunner.run(["-i", path, "-vf", "scale=1:1:flags=area", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard rgb.count >= 3 else { throw .failed("no pixels decoded") }
        let p = [UInt8](rgb.prefix(3))
        return FrameColour(r: Int(p[0]), g: Int(p[1]), b: Int(p[2]))
    }
}
