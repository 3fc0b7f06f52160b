/// What the reducer tells the vision side (`VisionIO`): load and send images, share the camera or screen.
package enum VisionCommand: Sendable, Equatable {
    /// Where an attachment was named.
    package enum Request: Sendable, Equatable {
        /// A typed line with `@path` words: its images go first, then the rest of the line as the question.
        case typed(String)
        /// The Ctrl-O prompt's path: the image waits for the next turn.
        case prompt(String)
    }

    /// Read and encode images; reported back as `VisionEvent.loaded` or `.failed`.
    case load(Request)
    /// Tab completion of an `@path` word; reported back at once as `VisionEvent.completed`.
    case complete(String)
    /// Send images (paced with camera frames), then report `VisionEvent.sent` carrying `question`.
    case send([AttachedImage], question: String?)
    /// Camera or screen sharing on or off (off: ffmpeg stops, nothing is captured).
    case share(Bool)
    /// The user is talking (push-to-talk held, or speech heard in open mic): frames are wanted.
    case talking(Bool)
}
