/// What the header shows about camera or screen sharing.
struct VisionStatus: Sendable, Equatable {
    /// e.g. `camera /dev/video0`.
    var source: String
    var sharing: Bool
    /// ffmpeg is running (frames are wanted now).
    var capturing = false
    var framesSent: Int
    var bytesPerFrame: Int
    /// Why capture stopped or could not start.
    var problem: String?

    /// The header text: the source, frames sent and bytes per frame, or that nothing is captured (the problem
    /// itself is a transcript line: the header has no room for it).
    var headerText: String {
        if problem != nil { return "\(source) unavailable — nothing captured" }
        guard sharing else { return "\(source) off — nothing captured" }
        var text = "\(source) · \(framesSent) frame\(framesSent == 1 ? "" : "s")"
        if framesSent > 0 { text += " · \(AttachedImage.formatBytes(bytesPerFrame))/frame" }
        if !capturing { text += " · waits for you to talk" }
        return text
    }
}
