import Foundation

/// A picture ready to send: a JPEG within the size budget, and its size in pixels.
package struct EncodedImage: Sendable, Equatable {
    package var jpeg: Data
    package var width: Int
    package var height: Int
    /// The JPEG quality (0…1) it was encoded at.
    package var quality: Double

    package init(jpeg: Data, width: Int, height: Int, quality: Double) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.quality = quality
    }
}

/// An image file the user attached, encoded for sending.
package struct AttachedImage: Sendable, Equatable {
    package var path: String
    /// The size of the file on disk.
    package var fileBytes: Int
    package var encoded: EncodedImage

    package init(path: String, fileBytes: Int, encoded: EncodedImage) {
        self.path = path
        self.fileBytes = fileBytes
        self.encoded = encoded
    }

    package var fileName: String { (path as NSString).lastPathComponent }

    /// The transcript line: file name, size on disk and the dimensions sent.
    package var summary: String {
        "\(fileName) (\(Self.formatBytes(fileBytes)), \(encoded.width)×\(encoded.height), \(Self.formatBytes(encoded.jpeg.count)) JPEG sent)"
    }

    static func formatBytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(format: "%.1f KB", Double(n) / 1024) }
        return String(format: "%.1f MB", Double(n) / (1024 * 1024))
    }
}
