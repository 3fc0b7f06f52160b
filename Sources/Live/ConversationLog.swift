/// The conversation as the session saw it (typed and transcribed user turns, the model's words), kept so that a
/// fresh session on the service (after a refused or expired handle) can be seeded with it. Bounded: the oldest
/// turns go first.
public struct ConversationLog: Sendable, Equatable {
    public struct Turn: Sendable, Equatable {
        public var role: String
        public var text: String
    }

    public private(set) var turns: [Turn] = []
    /// The most characters kept (roughly 50k tokens).
    public var limit: Int
    private var characters = 0

    public init(limit: Int = 200_000) { self.limit = limit }

    /// Appends a fragment; fragments of the same role in a row join into one turn.
    public mutating func append(role: String, _ fragment: String) {
        guard !fragment.isEmpty else { return }
        if let last = turns.indices.last, turns[last].role == role {
            turns[last].text += fragment
        } else {
            turns.append(Turn(role: role, text: fragment))
        }
        characters += fragment.count
        while characters > limit, turns.count > 1 {
            characters -= turns.removeFirst().text.count
        }
    }

    /// Starts a new turn even if the role is the same as the last one (two typed turns in a row).
    public mutating func appendTurn(role: String, _ text: String) {
        guard !text.isEmpty else { return }
        turns.append(Turn(role: role, text: text))
        characters += text.count
        while characters > limit, turns.count > 1 {
            characters -= turns.removeFirst().text.count
        }
    }

    public var isEmpty: Bool { turns.isEmpty }

    /// The turns as context for `clientContent` (whitespace from transcription fragments tidied).
    public var contents: [Content] {
        turns.compactMap { t in
            let text = t.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return text.isEmpty ? nil : Content(role: t.role, text: text)
        }
    }
}
