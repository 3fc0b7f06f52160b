/// How editing the instruction ended.
package enum InstructionEdit: Sendable, Equatable {
    /// Saved with new text (trimmed).
    case changed(String)
    /// Saved as it was, or not saved.
    case unchanged
    /// Saved empty: taken as "never mind", not as "remove the instruction".
    case empty
    /// The editor could not start, or exited with an error: the instruction stays.
    case failed(String)
}
