import TUI

/// What the vision side reports to the reducer.
package enum VisionEvent: Sendable {
    /// Images read and encoded. `question` is the typed line without its `@path` words (nil for the prompt).
    case loaded([AttachedImage], question: String?)
    /// An attachment could not be used (no such file, not an image, no ffmpeg): one line for the user.
    case failed(String)
    /// Images went out (`failure` says which did not and why); `question` follows them.
    case sent([AttachedImage], thumbnail: Thumbnail?, question: String?, failure: String?)
    /// Tab completion of `word`: the completed word, or nil when nothing matches.
    case completed(word: String, completion: String?)
    /// The camera or screen streamer's status after a frame or a problem, with the frame's thumbnail.
    case status(VisionStatus, thumbnail: Thumbnail?)
}
