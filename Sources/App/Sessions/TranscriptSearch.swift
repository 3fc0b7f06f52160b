import Conversation
import Foundation

/// Finds lines said in saved conversations (both sides, typed and spoken) that hold every word asked for,
/// ignoring case. Each file's raw lines are tested first and only candidates are decoded, so a hundred
/// thousand records take a fraction of a second.
struct TranscriptSearch {
    struct Match: Equatable {
        var conversation: String
        /// The matching line and where it is in its file.
        var line: TranscriptRecord
        var index: Int
        /// The said line before the match (or after it, when the match comes first), to show what it answered.
        var context: (index: Int, record: TranscriptRecord)?

        static func == (a: Match, b: Match) -> Bool {
            a.conversation == b.conversation && a.index == b.index && a.line == b.line
                && a.context?.index == b.context?.index && a.context?.record == b.context?.record
        }
    }

    let words: [String]
    /// Byte patterns for the raw test; nil for a word whose JSON form may differ from its text (a quote, a
    /// backslash, a control character or a non-ASCII letter whose case the raw test cannot fold).
    private let patterns: [[UInt8]?]

    init(_ query: [String]) {
        words = query.flatMap { $0.split(whereSeparator: \.isWhitespace).map { $0.lowercased() } }
        patterns = words.map { w in
            let bytes = Array(w.utf8)
            return bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C }) ? bytes : nil
        }
    }

    /// Whether a said line holds every word.
    func matches(_ text: String) -> Bool {
        let lower = text.lowercased()
        return words.allSatisfy { lower.contains($0) }
    }

    /// The matches in one transcript, in order.
    func search(_ lines: TranscriptLines, conversation: String) -> [Match] {
        guard !words.isEmpty else { return [] }
        let decoder = JSONDecoder()
        var out: [Match] = []
        for i in 0..<lines.count {
            guard patterns.allSatisfy({ $0.map { lines.lineContains(i, lowercasedASCII: $0) } ?? true }),
                let r = lines.decode(i, with: decoder), let text = r.turn?.text, matches(text)
            else { continue }
            out.append(Match(conversation: conversation, line: r, index: i, context: context(lines, around: i, decoder: decoder)))
        }
        return out
    }

    /// Every match in the transcripts of `directory`, oldest conversation first.
    func search(directory: String) -> [Match] {
        TranscriptStore.sessions(in: directory).flatMap { file -> [Match] in
            guard let lines = try? TranscriptLines.load(file) else { return [] }
            return search(lines, conversation: ConversationID.id(of: file))
        }
    }

    private func context(_ lines: TranscriptLines, around i: Int, decoder: JSONDecoder) -> (index: Int, record: TranscriptRecord)? {
        for j in stride(from: i - 1, through: max(0, i - 20), by: -1) {
            if let r = lines.decode(j, with: decoder), r.turn != nil { return (j, r) }
        }
        for j in stride(from: i + 1, to: min(lines.count, i + 21), by: 1) {
            if let r = lines.decode(j, with: decoder), r.turn != nil { return (j, r) }
        }
        return nil
    }
}
