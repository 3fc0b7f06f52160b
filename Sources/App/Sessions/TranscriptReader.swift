import Conversation
import Foundation
import TUI
#if canImport(Glibc)
import Glibc
#endif

/// A saved transcript's bytes split into lines, decoded only where asked: `history` and its search look at
/// thousands of files and decode a few lines of each.
struct TranscriptLines {
    let path: String
    let bytes: [UInt8]
    /// Byte ranges of the lines, without their newlines; the last one is unterminated when `torn` is true.
    let ranges: [Range<Int>]
    /// The file does not end with a newline: its last line was cut short (a crash or a full disk mid-write).
    let torn: Bool

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(bytes.count / 128 + 1)
        var torn = false
        bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            var start = 0
            while start < buf.count {
                guard let hit = memchr(base + start, 0x0A, buf.count - start) else {
                    ranges.append(start..<buf.count)
                    torn = true
                    return
                }
                let end = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                if end > start { ranges.append(start..<end) }
                start = end + 1
            }
        }
        self.ranges = ranges
        self.torn = torn
    }

    /// Reads a whole file; a file that cannot be opened or read is a typed error naming it.
    static func load(_ path: String) throws(ParleyError) -> TranscriptLines {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .file(path: path, problem: "cannot read the conversation (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var st = stat()
        var bytes: [UInt8] = []
        if fstat(fd, &st) == 0, st.st_size > 0 { bytes.reserveCapacity(Int(st.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw .file(path: path, problem: "cannot read the conversation (\(String(cString: strerror(errno))))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return TranscriptLines(path: path, bytes: bytes)
    }

    var count: Int { ranges.count }

    /// Line `i` decoded, or nil when it is not a record this parley reads (garbage, a torn line, another kind of
    /// JSON, an unknown kind, a newer format).
    func decode(_ i: Int, with decoder: JSONDecoder) -> TranscriptRecord? {
        try? decodeRecord(i, with: decoder)
    }

    /// Line `i` decoded; a line of a known shape that is still not read throws `TranscriptRecord.NotRead`.
    func decodeRecord(_ i: Int, with decoder: JSONDecoder) throws -> TranscriptRecord {
        let r = ranges[i]
        return try bytes.withUnsafeBufferPointer { buf throws -> TranscriptRecord in
            guard let base = buf.baseAddress else { throw CocoaError(.coderReadCorrupt) }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base + r.lowerBound), count: r.count, deallocator: .none)
            return try decoder.decode(TranscriptRecord.self, from: data)
        }
    }

    /// Whether line `i` holds `needle` (already lower-cased ASCII), ignoring ASCII case: a cheap test before
    /// decoding. Non-ASCII bytes are compared as they are.
    func lineContains(_ i: Int, lowercasedASCII needle: [UInt8]) -> Bool {
        let r = ranges[i]
        return bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return needle.isEmpty }
            return Self.find(needle, in: base, r, foldingCase: true) != nil
        }
    }

    /// How many times the file holds `needle` exactly (case and all): `"kind":"user"` counts spoken and typed
    /// turns without decoding them. A JSON string cannot hold an unescaped quote, so text never matches by accident.
    func occurrences(of needle: [UInt8]) -> Int {
        guard !needle.isEmpty else { return 0 }
        return bytes.withUnsafeBufferPointer { buf -> Int in
            guard let base = buf.baseAddress else { return 0 }
            var n = 0
            var at = 0
            while at < buf.count, let hit = glibcMemmem(base + at, buf.count - at, needle, needle.count) {
                n += 1
                at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base + needle.count
            }
            return n
        }
    }

    /// The first offset in `range` where `needle` starts; `memchr` finds the candidates (in both cases of an
    /// ASCII letter when folding), so the scan runs at memory speed even in a debug build.
    private static func find(_ needle: [UInt8], in base: UnsafePointer<UInt8>, _ range: Range<Int>, foldingCase: Bool) -> Int? {
        guard let first = needle.first else { return range.lowerBound }
        let last = range.upperBound - needle.count
        guard last >= range.lowerBound else { return nil }
        let other = foldingCase && first >= 0x61 && first <= 0x7A ? first - 0x20 : first
        func next(_ byte: UInt8, from: Int) -> Int? {
            memchr(base + from, Int32(byte), last - from + 1).map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base }
        }
        var at = range.lowerBound
        var lo = next(first, from: at)
        var hi = other == first ? nil : next(other, from: at)
        while let start = [lo, hi].compactMap({ $0 }).min() {
            var k = 1
            while k < needle.count {
                var b = base[start + k]
                if foldingCase, b >= 0x41, b <= 0x5A { b += 0x20 }
                if b != needle[k] { break }
                k += 1
            }
            if k == needle.count { return start }
            at = start + 1
            guard at <= last else { return nil }
            if lo == start { lo = next(first, from: at) }
            if hi == start { hi = next(other, from: at) }
        }
        return nil
    }
}

/// glibc's `memmem` (the Glibc module hides it behind `_GNU_SOURCE`): a two-way search that does not stop at
/// every quote of a JSON line the way a `memchr` on the first byte does.
@_silgen_name("memmem")
private func glibcMemmem(_ haystack: UnsafeRawPointer, _ haystackLength: Int, _ needle: UnsafeRawPointer, _ needleLength: Int) -> UnsafeMutableRawPointer?

/// Why part of a transcript was not read. A transcript is read as far as it is whole; what is left is named.
enum TranscriptProblem: Equatable, CustomStringConvertible {
    /// The last line has no newline and does not parse: a crash or a full disk while it was written.
    case tornLastLine(line: Int, bytes: Int)
    /// A line that is not a transcript record (garbage bytes, or JSON of another shape).
    case notARecord(line: Int)
    /// A record of a kind this parley does not know (written by a newer one, or by hand).
    case unknownKind(line: Int, kind: String)
    /// From `line` on, the file was written by a newer parley in a format this one cannot read.
    case newerFormat(line: Int, format: Int, linesLeft: Int)

    var description: String {
        switch self {
        case .tornLastLine(let line, let bytes):
            "line \(line) is cut short (\(bytes) bytes: parley stopped while writing it) and was not read"
        case .notARecord(let line):
            "line \(line) is not a transcript record and was skipped"
        case .unknownKind(let line, let kind):
            "line \(line) is a record of a kind this parley does not know (\(TerminalText.sanitized(String(kind.prefix(40)), .singleLine))) and was skipped"
        case .newerFormat(let line, let format, let linesLeft):
            "from line \(line) on (\(linesLeft) line\(linesLeft == 1 ? "" : "s")) the file was written by a newer parley (transcript format \(format); this one reads \(TranscriptRecord.format)) and was not read"
        }
    }
}

/// A transcript read as far as it is whole.
struct TranscriptReading {
    var records: [TranscriptRecord]
    var problems: [TranscriptProblem]

    /// One line for a person: what was not read, the first few problems named.
    var unread: String? {
        guard !problems.isEmpty else { return nil }
        let shown = problems.prefix(3).map(\.description).joined(separator: "; ")
        return problems.count > 3 ? "\(shown); and \(problems.count - 3) more" : shown
    }
}

enum TranscriptReader {
    /// Reads every whole record of a file. A line that is not a record, or of an unknown kind, is skipped and
    /// named; a torn last line is named; a record from a newer format stops the reading there. Never traps.
    static func read(_ path: String) throws(ParleyError) -> TranscriptReading {
        read(try TranscriptLines.load(path))
    }

    static func read(_ lines: TranscriptLines) -> TranscriptReading {
        let decoder = JSONDecoder()
        var out = TranscriptReading(records: [], problems: [])
        out.records.reserveCapacity(lines.count)
        for i in 0..<lines.count {
            let isLast = i == lines.count - 1
            do {
                out.records.append(try lines.decodeRecord(i, with: decoder))
            } catch TranscriptRecord.NotRead.newerFormat(let format) {
                out.problems.append(.newerFormat(line: i + 1, format: format, linesLeft: lines.count - i))
                break
            } catch TranscriptRecord.NotRead.unknownKind(let kind) {
                out.problems.append(.unknownKind(line: i + 1, kind: kind))
            } catch {
                out.problems.append(isLast && lines.torn ? .tornLastLine(line: i + 1, bytes: lines.ranges[i].count) : .notARecord(line: i + 1))
            }
        }
        return out
    }
}
