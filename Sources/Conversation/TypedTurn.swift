/// A typed user turn between being sent and being answered: the one owner of "a typed turn is pending".
/// The service may echo it back as input transcription; the echo is not shown or saved a second time.
package struct TypedTurn: Sendable, Equatable {
    package let text: String
    /// It was sent over a reply: model output until that reply ends (`interrupted` / `turnComplete`) is the
    /// old reply's tail, not the answer to this turn.
    var afterReply: Bool
    /// Input transcription received so far while it is pending.
    package private(set) var echo = ""
    /// Echoes still to come: one more each time the same turn is asked again on the same connection.
    private(set) var echoesDue = 1

    package init(text: String, afterReply: Bool) {
        self.text = text
        self.afterReply = afterReply
    }

    /// Some of its echo has come (the service echoes typed turns it reads; not every model does).
    var echoStarted: Bool { !echo.isEmpty }

    /// The turn was asked again (the reply watchdog's nudge): the service echoes it once more.
    mutating func expectAnotherEcho() { echoesDue += 1 }

    /// An echo finished: the turn while another echo is due, else nil.
    func echoFinished() -> TypedTurn? {
        guard echoesDue > 1 else { return nil }
        var next = self
        next.echoesDue -= 1
        next.echo = ""
        return next
    }

    /// Takes a fragment of input transcription: true when it is (so far) an echo of the typed text, which is
    /// then swallowed; false when it is something else the user said.
    mutating func absorbEcho(_ fragment: String) -> Bool {
        let candidate = echo + fragment
        let heard = Self.normalized(candidate)
        guard !heard.isEmpty else { echo = candidate; return true }
        guard Self.normalized(text).hasPrefix(heard) else { return false }
        echo = candidate
        return true
    }

    /// Letters and digits only, lower-cased: transcription spacing, punctuation and noise tokens differ.
    package static func normalized(_ s: String) -> String {
        var out = ""
        var skipping = false
        for c in s.lowercased() {
            if c == "<" { skipping = true; continue }
            if c == ">" { skipping = false; continue }
            if !skipping, c.isLetter || c.isNumber { out.append(c) }
        }
        return out
    }
}
