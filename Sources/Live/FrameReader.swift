import Foundation

/// One pass over the bytes of a server frame: what `ReplyAudioFrame` and `TranscriptFrame` read with (whitespace,
/// single bytes, strings without escapes, key names in either case).
struct FrameReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return i == bytes.count
        }
    }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == byte else { return false }
        i += 1
        return true
    }

    /// A string without escapes, control characters or non-ASCII bytes, as a range of `bytes`.
    mutating func plainString() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")), let base = bytes.baseAddress else { return nil }
        let start = i
        // Eight bytes at a time while none of them can end or spoil the string (the audio's payload is
        // thousands of base64 characters); the byte loop below takes over from the word that holds one.
        while i + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            if Self.holdsSpecialByte(word) { break }
            i += 8
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return start..<(i - 1)
            }
            guard b >= 0x20, b < 0x80, b != UInt8(ascii: "\\") else { return nil }
            i += 1
        }
        return nil
    }

    /// The audio's payload, thousands of base64 characters: its closing quote found by `memchr` (many bytes an
    /// instruction), what lies between left to the base64 decoder, which takes nothing but its alphabet. An
    /// escape, a control or non-ASCII byte fails the decoding, and the frame goes to the full decoder, as it
    /// does when `plainString` refuses it.
    mutating func base64String() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")), let base = bytes.baseAddress, i <= bytes.count,
              let quote = memchr(base + i, Int32(UInt8(ascii: "\"")), bytes.count - i) else { return nil }
        let start = i
        i = UnsafeRawPointer(quote) - UnsafeRawPointer(base) + 1
        return start..<(i - 1)
    }

    func equals(_ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let n = name.utf8Start
        for k in 0..<range.count where bytes[range.lowerBound + k] != n[k] { return false }
        return true
    }

    func key(_ range: Range<Int>, _ camel: StaticString, _ snake: StaticString) -> Bool {
        equals(range, camel) || equals(range, snake)
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether any of the eight bytes is a quote, a backslash, a control character (below 0x20) or not ASCII
    /// (SWAR: a byte's high bit after subtracting `n` from every byte says it was below `n`; exact for "any").
    static func holdsSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        func anyBelow(_ x: UInt64, _ n: UInt64) -> Bool { (x &- n &* ones) & ~x & high != 0 }
        return word & high != 0 || anyBelow(word, 0x20)
            || anyBelow(word ^ (ones &* 0x22), 1) || anyBelow(word ^ (ones &* 0x5c), 1)
    }
}
