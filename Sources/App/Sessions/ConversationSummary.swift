import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line of `parley history`: what a saved conversation was, read from the head and the tail of its file
/// (turns are counted without decoding them).
struct ConversationSummary: Codable, Equatable, Sendable {
    /// The file name without `.jsonl`.
    var id: String
    /// Seconds since 1970 of the first and the last record.
    var start: Double?
    var end: Double?
    /// User turns, spoken or typed.
    var turns: Int
    var model: String?
    var voice: String?
    /// The first line of the system instruction the conversation started with.
    var persona: String?
    /// Dollars, when the records carry them.
    var usd: Double?
    var firstWords: String?

    /// How many lines from each end are decoded looking for the session record, the first words and the end.
    private static let headLines = 64, tailLines = 16

    init(id: String, lines: TranscriptLines) {
        self.id = id
        let decoder = JSONDecoder()
        turns = lines.occurrences(of: Array(#""kind":"user""#.utf8))
        for i in 0..<min(lines.count, Self.headLines) {
            guard let r = lines.decode(i, with: decoder) else { continue }
            if start == nil, let t = r.time { start = Self.seconds(t) }
            if let session = r.session, model == nil {
                model = session.model
                voice = session.voice
                persona = session.system.flatMap { $0.split(whereSeparator: \.isNewline).first.map(String.init) }
            }
            if firstWords == nil, let text = r.turn?.text, !text.isEmpty {
                firstWords = String(text.prefix(200))
            }
            if model != nil, firstWords != nil, start != nil { break }
        }
        var i = lines.count - 1
        while i >= max(0, lines.count - Self.tailLines), end == nil {
            end = lines.decode(i, with: decoder)?.time.flatMap(Self.seconds)
            i -= 1
        }
        let usdKey = Array(#""usd":"#.utf8)
        if lines.occurrences(of: usdKey) > 0 {
            usd = (0..<lines.count).filter { lines.lineContains($0, lowercasedASCII: usdKey) }
                .compactMap { lines.decode($0, with: decoder)?.usd }.reduce(0, +)
        }
    }

    /// The length of the conversation in seconds, when both ends carry a time.
    var length: Double? { start.flatMap { s in end.map { max(0, $0 - s) } } }

    /// `2026-11-23T17:45:43Z` (what `Timestamp.iso8601UTC` writes) as seconds since 1970; nil for anything else.
    static func seconds(_ iso: String) -> Double? {
        let u = Array(iso.utf8)
        guard u.count >= 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A else { return nil }
        func n(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for b in u[r] {
                guard b >= 0x30, b <= 0x39 else { return nil }
                v = v * 10 + Int32(b - 0x30)
            }
            return v
        }
        guard let y = n(0..<4), let mo = n(5..<7), let d = n(8..<10), let h = n(11..<13), let mi = n(14..<16), let s = n(17..<19)
        else { return nil }
        var t = tm()
        t.tm_year = y - 1900
        t.tm_mon = mo - 1
        t.tm_mday = d
        t.tm_hour = h
        t.tm_min = mi
        t.tm_sec = s
        return Double(timegm(&t))
    }
}

/// The summaries of every saved conversation, kept in `history-index.json` beside the transcripts so listing
/// a thousand of them reads one small file and stats the rest. An entry is used only while its transcript has
/// the size and modification time it had when it was summarised; anything else is summarised again.
struct HistoryIndex: Codable {
    static let fileName = "history-index.json"
    static let version = 1

    struct Entry: Codable {
        var size: Int64
        var modified: Int64
        var summary: ConversationSummary
    }

    var version = Self.version
    var entries: [String: Entry] = [:]

    /// Every conversation in `directory`, oldest first, from the index where it is fresh. The index is written
    /// back when anything changed; a directory that cannot be written just goes without one.
    static func summaries(in directory: String) -> [ConversationSummary] {
        let path = directory + "/" + fileName
        var index = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(HistoryIndex.self, from: $0) }
        if index?.version != version { index = nil }
        var old = index?.entries ?? [:]
        var fresh = HistoryIndex()
        var changed = index == nil
        var out: [ConversationSummary] = []
        for file in TranscriptStore.sessions(in: directory) {
            let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            var st = stat()
            guard stat(file, &st) == 0 else { continue }
            let size = Int64(st.st_size)
            let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            if let e = old.removeValue(forKey: name), e.size == size, e.modified == modified {
                fresh.entries[name] = e
                out.append(e.summary)
                continue
            }
            guard let lines = try? TranscriptLines.load(file) else { continue }
            let summary = ConversationSummary(id: name, lines: lines)
            fresh.entries[name] = Entry(size: size, modified: modified, summary: summary)
            out.append(summary)
            changed = true
        }
        if changed || !old.isEmpty, let data = try? JSONEncoder().encode(fresh) {
            Paths.writePrivately(data, to: path)
        }
        return out
    }
}
