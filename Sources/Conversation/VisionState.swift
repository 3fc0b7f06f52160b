import TUI

/// Pictures in the conversation, as the reducer sees them: the one owner of "sharing is on" and of the images
/// waiting for the next turn. The streamer and the attachment loader are told what changed (`VisionCommand`)
/// and report back (`VisionEvent`); they decide none of it.
package struct VisionState: Sendable, Equatable {
    /// The camera or screen, e.g. `camera /dev/video0` (nil: parley was started without one).
    package var source: String?
    /// The source can be used at all (false: e.g. `--screen` with no screen in this session).
    package var available = true
    /// The user wants the camera or screen shared (`c` toggles it).
    package var sharing = false
    /// Frames go out all the time while sharing (`frames = "always"`), not only while the user talks.
    package var framesAlways = false
    /// What the streamer last reported: frames sent, bytes per frame, a problem.
    package var status: VisionStatus?
    /// Images attached with Ctrl-O, sent when the next turn starts.
    package var pending: [AttachedImage] = []
    /// An attachment is being loaded (a typed `@path` line or the prompt's path).
    var loading = false
    /// What the streamer was last told, so a change is sent once.
    var toldSharing = false
    var toldTalking = false

    package init(source: String? = nil, available: Bool = true, sharing: Bool = false, framesAlways: Bool = false) {
        self.source = source
        self.available = available
        self.sharing = sharing
        self.framesAlways = framesAlways
    }
}
