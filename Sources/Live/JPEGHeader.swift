import Foundation

/// What a JPEG's markers say about it, read without decoding: enough to check that a `realtimeInput.video`
/// blob is a JPEG and to know its size in pixels.
public struct JPEGHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Colour components: 1 (grey) or 3 (YCbCr).
    public var components: Int

    public init(width: Int, height: Int, components: Int) {
        self.width = width
        self.height = height
        self.components = components
    }

    /// Parses the markers up to the first start-of-frame; nil when `data` is not a JPEG (no SOI, no SOF, or a
    /// segment that runs past the end).
    public init?(_ data: Data) {
        let b = [UInt8](data.prefix(256 * 1024))
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            // SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 8 else { return nil }
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                guard w > 0, h > 0 else { return nil }
                self.init(width: w, height: h, components: Int(b[i + 9]))
                return
            }
            if marker == 0xDA { return nil }  // scan data before any frame header
            i += 2 + length
        }
        return nil
    }

    /// Whether `data` ends with the end-of-image marker (a frame cut short does not).
    public static func isComplete(_ data: Data) -> Bool {
        data.count >= 4 && data[data.endIndex - 2] == 0xFF && data[data.endIndex - 1] == 0xD9
    }

    /// The MIME type the service takes for frames and images.
    public static let mimeType = "image/jpeg"
}
