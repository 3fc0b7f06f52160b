import Foundation

/// Base64 as the Live service speaks it: parley sends the standard alphabet and accepts the URL-safe one too,
/// with or without padding.
public enum Base64 {
    public static func encode(_ data: Data) -> String {
        let count = encodedCount(data.count)
        return String(unsafeUninitializedCapacity: count) { out in
            data.withUnsafeBytes { encode($0, into: out.baseAddress!) }
        }
    }

    /// The characters `count` bytes take, padding included.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Writes the standard alphabet with padding for `bytes` at `out` (which has room for `encodedCount`); returns
    /// how many characters it wrote. Mic audio is 50 frames a second of this: six bytes a step (one 64-bit load,
    /// four lookups of two characters each, one 64-bit store), half Foundation's instructions a byte.
    @discardableResult
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let n = bytes.count
        guard n > 0, let input = bytes.baseAddress else { return 0 }
        let o = UnsafeMutableRawPointer(out)
        return characterPairs.withUnsafeBufferPointer { pairs -> Int in
            let p = pairs.baseAddress!
            var i = 0, j = 0
            // Eight bytes readable: the first six of them make eight characters.
            while i &+ 8 <= n {
                let w = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let chars = UInt64(p[Int(truncatingIfNeeded: w >> 52)])
                    | UInt64(p[Int(truncatingIfNeeded: (w >> 40) & 0xFFF)]) << 16
                    | UInt64(p[Int(truncatingIfNeeded: (w >> 28) & 0xFFF)]) << 32
                    | UInt64(p[Int(truncatingIfNeeded: (w >> 16) & 0xFFF)]) << 48
                o.storeBytes(of: chars.littleEndian, toByteOffset: j, as: UInt64.self)
                i &+= 6
                j &+= 8
            }
            let b = input.assumingMemoryBound(to: UInt8.self)
            while i &+ 3 <= n {
                let v = Int(b[i]) << 16 | Int(b[i &+ 1]) << 8 | Int(b[i &+ 2])
                o.storeBytes(of: p[v >> 12].littleEndian, toByteOffset: j, as: UInt16.self)
                o.storeBytes(of: p[v & 0xFFF].littleEndian, toByteOffset: j &+ 2, as: UInt16.self)
                i &+= 3
                j &+= 4
            }
            if i < n {
                let two = i &+ 1 < n
                let v = Int(b[i]) << 16 | (two ? Int(b[i &+ 1]) << 8 : 0)
                o.storeBytes(of: p[v >> 12].littleEndian, toByteOffset: j, as: UInt16.self)
                let pair = p[v & 0xFFF].littleEndian  // the third character (or padding) and padding
                o.storeBytes(of: two ? UInt8(truncatingIfNeeded: pair) : UInt8(ascii: "="), toByteOffset: j &+ 2, as: UInt8.self)
                o.storeBytes(of: UInt8(ascii: "="), toByteOffset: j &+ 3, as: UInt8.self)
                j &+= 4
            }
            return j
        }
    }

    /// The two characters of every 12 bits, the first in the low byte (stored little-endian, so in order).
    private static let characterPairs: [UInt16] = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        return (0..<4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 63]) << 8 }
    }()

    public static func decode(_ text: String) -> Data? {
        var text = text
        if let d = text.withUTF8({ decodeCanonical($0) }) { return d }
        return decodeLenient(text)
    }

    /// Reply audio is 25 frames a second of a few kilobytes each, decoded straight from the frame's bytes (no
    /// `String` made of them). Takes either alphabet, padded or not; nil for anything else (whitespace, stray
    /// characters, misplaced padding, non-zero bits after the last byte), which `decodeLenient` then judges.
    static func decodeCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        // Foundation's decoder is the cheaper one for the standard alphabet with padding, what the service
        // sends (a third fewer instructions than the table below, measured with -O); the table takes the rest.
        if let d = Data(base64Encoded: Data(buffer: bytes)), !d.isEmpty { return d }
        var end = bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: "=") {
            end -= 1
            if end > 0, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
            guard bytes.count % 4 == 0 else { return nil }
        }
        let whole = end / 4
        let rest = end % 4
        guard rest != 1 else { return nil }
        let count = whole * 3 + (rest == 0 ? 0 : rest - 1)
        guard count > 0 else { return nil }
        var out = Data(count: count)
        let ok = out.withUnsafeMutableBytes { raw -> Bool in
            guard let o = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), let i = bytes.baseAddress else { return false }
            return decodingTable.withUnsafeBufferPointer { table -> Bool in
                var bad: UInt32 = 0
                var k = 0
                var j = 0
                for _ in 0..<whole {
                    let a = UInt32(table[Int(i[k])]), b = UInt32(table[Int(i[k + 1])])
                    let c = UInt32(table[Int(i[k + 2])]), d = UInt32(table[Int(i[k + 3])])
                    bad |= a | b | c | d
                    let v = a << 18 | b << 12 | c << 6 | d
                    o[j] = UInt8(truncatingIfNeeded: v >> 16)
                    o[j + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    o[j + 2] = UInt8(truncatingIfNeeded: v)
                    k += 4
                    j += 3
                }
                if rest >= 2 {
                    let a = UInt32(table[Int(i[k])]), b = UInt32(table[Int(i[k + 1])])
                    let c = rest == 3 ? UInt32(table[Int(i[k + 2])]) : 0
                    bad |= a | b | c
                    let v = a << 18 | b << 12 | c << 6
                    o[j] = UInt8(truncatingIfNeeded: v >> 16)
                    if rest == 3 { o[j + 1] = UInt8(truncatingIfNeeded: v >> 8) }
                    // Bits after the last whole byte: left to `decodeLenient` (Foundation ignores them), the rare case.
                    if rest == 2 && b & 0x0F != 0 || rest == 3 && c & 0x03 != 0 { bad |= 0x40 }
                }
                return bad & 0x40 == 0
            }
        }
        return ok ? out : nil
    }

    /// The six bits of each character of either alphabet; 0x40 marks every other byte.
    private static let decodingTable: [UInt8] = {
        var t = [UInt8](repeating: 0x40, count: 256)
        for (n, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() { t[Int(c)] = UInt8(n) }
        t[Int(UInt8(ascii: "+"))] = 62
        t[Int(UInt8(ascii: "/"))] = 63
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// Anything `decodeCanonical` does not take: whitespace between the characters, the two alphabets mixed,
    /// padding left out.
    static func decodeLenient(_ text: String) -> Data? {
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
