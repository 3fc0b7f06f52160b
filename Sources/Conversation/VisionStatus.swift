/// What the header shows about camera or screen sharing.
package struct VisionStatus: Sendable, Equatable {
    /// e.g. `camera /dev/video0`.
    package var source: String
    package var sharing: Bool
    /// ffmpeg is running (frames are wanted now).
    package var capturing = false
    package var framesSent: Int
    package var bytesPerFrame: Int
    /// Why capture stopped or could not start.
    package var problem: String?

    package init(source: String, sharing: Bool, capturing: Bool = false, framesSent: Int, bytesPerFrame: Int, problem: String? = nil) {
        self.source = source
        self.sharing = sharing
        self.capturing = capturing
        self.framesSent = framesSent
        self.bytesPerFrame = bytesPerFrame
        self.problem = problem
    }

    /// The header text: the source, frames sent and bytes per frame, or that nothing is captured (the problem
    /// itself is a transcript line: the header has no room for it).
    package var headerText: String {
        if problem != nil { return "\(source) unavailable — nothing captured" }
        guard sharing else { return "\(source) off — nothing captured" }
        var text = "\(source) · \(framesSent) frame\(framesSent == 1 ? "" : "s")"
        if framesSent > 0 { text += " · \(AttachedImage.formatBytes(bytesPerFrame))/frame" }
        if !capturing { text += " · waits for you to talk" }
        return text
    }
}
