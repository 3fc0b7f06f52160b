import Live

/// The part of a session that survives a reconnection: what a resumption handle points to.
struct Conversation: Sendable, Equatable {
    var sessionID: Int
    var model: String
    /// User turns so far; the next turn is `turns + 1`.
    var turns = 0
    /// User and model lines, for token counts.
    var history: [String] = []
    /// Which scripted transcript the next audio turn gets.
    var nextTranscript = 0
    /// Sequence number for function call ids.
    var nextCall = 0
    /// Tokens of the user's speech kept in the context (25 a second, as the service counts).
    var audioTokens = 0
    /// The previous turn's prompt: the part the service reports as cached on the next turn.
    var lastPrompt = 0

    init(sessionID: Int, model: String) {
        self.sessionID = sessionID
        self.model = model
    }
}
