import Foundation

/// Base64 as the Live service speaks it: parley sends the standard alphabet and accepts the URL-safe one too,
/// with or without padding.
public enum Base64 {
    public static func encode(_ data: Data) -> String { data.base64EncodedString() }

    public static func decode(_ text: String) -> Data? {
        if let d = Data(base64Encoded: text) { return d }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s = s.filter { !$0.isWhitespace }
        let rem = s.utf8.count % 4
        if rem == 1 { return nil }
        if rem > 0 { s += String(repeating: "=", count: 4 - rem) }
        return Data(base64Encoded: s)
    }
}

/// Inline bytes with their MIME type, e.g. `audio/pcm;rate=16000`.
public struct Blob: Codable, Sendable, Equatable {
    public var mimeType: String
    public var data: Data

    public init(mimeType: String, data: Data) {
        self.mimeType = mimeType
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case mimeType, data }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try c.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        let text = try c.decode(String.self, forKey: .data)
        guard let d = Base64.decode(text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: c, debugDescription: "data is not base64")
        }
        data = d
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mimeType, forKey: .mimeType)
        try c.encode(Base64.encode(data), forKey: .data)
    }

    /// The sample rate named by an `audio/pcm;rate=N` MIME type.
    public var sampleRate: Int? {
        guard let r = mimeType.range(of: "rate=") else { return nil }
        return Int(mimeType[r.upperBound...].prefix { $0.isNumber })
    }
}
