/// Transcription fragments joined into clean text. The service sends small pieces with a leading space
/// (`" Where"`, `" are"`), sometimes cut inside a word (`" Whe"`, `"re"`), and tokens such as `" <noise>"`:
/// the pieces are concatenated as sent, tokens in angle brackets dropped, runs of spaces folded, spaces before
/// punctuation and at both ends removed. An unclosed `<…` at the end is held back until its `>` arrives.
public struct TranscriptText: Sendable, Equatable {
    /// The fragments as received.
    public private(set) var raw = ""

    public init(_ raw: String = "") { self.raw = raw }

    public mutating func append(_ fragment: String) { raw += fragment }

    public mutating func reset() { raw = "" }

    public var isEmpty: Bool { text.isEmpty }

    /// The clean text so far.
    public var text: String {
        var out = ""
        var pendingSpace = false
        var token: String?
        func emit(_ ch: Character) {
            if ch.isWhitespace {
                pendingSpace = !out.isEmpty
                return
            }
            if pendingSpace, !Self.closesUp(ch) { out.append(" ") }
            pendingSpace = false
            out.append(ch)
        }
        for ch in raw {
            if let t = token {
                if ch == ">" {
                    token = nil
                    pendingSpace = !out.isEmpty
                } else if ch.isLetter || ch == "_" || ch == "-" {
                    token = t + String(ch)
                } else {
                    // Not a `<noise>`-style token after all: it was text.
                    token = nil
                    t.forEach(emit)
                    emit(ch)
                }
                continue
            }
            if ch == "<" { token = "<" } else { emit(ch) }
        }
        return out
    }

    /// Punctuation that attaches to the word before it.
    private static func closesUp(_ ch: Character) -> Bool { ",.!?;:…)".contains(ch) }

    /// What `text` gained since `printed` (for printing as it streams); empty when it no longer starts with
    /// `printed`, so nothing is printed twice.
    public func addition(after printed: String) -> String {
        let now = text
        guard now.hasPrefix(printed) else { return "" }
        return String(now.dropFirst(printed.count))
    }
}
