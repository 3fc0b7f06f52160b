/// What the recorder tells the reducer (through the event queue, or as an effect's answer).
package enum RecordingEvent: Sendable, Equatable {
    /// Recording (again), into this file.
    case started(path: String)
    /// Paused by the user; the file stays open for the rest of the conversation.
    case stopped(path: String)
    /// The recording could not start, or stopped for good (a full disk, an unwritable directory).
    case failed(RecordingFailure)
    /// The writer could not keep up and dropped this much sound (said once).
    case fellBehind(seconds: Double)
}

/// Why a recording stopped or could not start, in words for the status line, with what to do.
package struct RecordingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var hint: String

    package init(message: String, hint: String) {
        self.message = message
        self.hint = hint
    }

    package var description: String { "\(message) — \(hint)" }
}
