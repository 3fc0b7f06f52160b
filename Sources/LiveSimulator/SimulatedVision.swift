import Foundation
import Live

/// What one connection was shown through `realtimeInput.video`, checked the way the service checks it (a JPEG
/// blob, at most about one frame a second, not too large), and what the simulator can honestly say about it:
/// how many frames, their size in pixels, the last one's average colour.
struct SimulatedVision {
    /// The service takes one frame a second; 50 ms of slack absorbs network jitter between paced frames.
    static let minInterval: Duration = .milliseconds(950)
    /// Larger blobs are refused (the service's inline-data limit; parley's own budget is far lower).
    static let maxFrameBytes = 7 * 1024 * 1024

    /// Frames accepted since the last answered turn.
    private(set) var framesThisTurn = 0
    private var lastFrame: (jpeg: Data, header: JPEGHeader)?
    private var lastAcceptedAt: Duration?

    /// Takes one blob; returns the close reason when the service would refuse it. A frame that comes too soon
    /// after the last one is dropped and counted, as the service drops frames beyond its rate.
    mutating func receive(
        _ blob: Blob, now: Duration, userSpeaking: Bool, connection: Int, directory: any SessionDirectory
    ) -> CloseReason? {
        guard blob.mimeType == JPEGHeader.mimeType, blob.data.count <= Self.maxFrameBytes,
            let header = JPEGHeader(blob.data)
        else {
            directory.record { $0.videoFramesRefused += 1 }
            return .invalidArgument
        }
        if let last = lastAcceptedAt, now - last < Self.minInterval {
            directory.record { $0.videoFramesTooFast += 1 }
            return nil
        }
        lastAcceptedAt = now
        framesThisTurn += 1
        lastFrame = (blob.data, header)
        let record = VideoFrameRecord(
            connection: connection, at: now, bytes: blob.data.count, width: header.width, height: header.height,
            duringUserActivity: userSpeaking)
        directory.record { $0.videoFrames.append(record) }
        return nil
    }

    /// The reply to a turn that followed frames or images, or nil when nothing was shown since the last turn.
    mutating func answer(colour: (Data) -> FrameColour? = { try? FrameColour.average(ofJPEG: $0) }) -> String? {
        guard framesThisTurn > 0, let last = lastFrame else { return nil }
        defer { framesThisTurn = 0 }
        let size = "\(last.header.width) by \(last.header.height) pixels"
        let what = framesThisTurn == 1 ? "one image, \(size)" : "\(framesThisTurn) frames, the last one \(size)"
        guard let c = colour(last.jpeg) else {
            return "I was shown \(what). I cannot tell its colour: the simulator needs ffmpeg to decode it."
        }
        return "I was shown \(what). On average it is \(c.name) (\(c.hex))."
    }
}

/// One frame or image the simulator accepted.
public struct VideoFrameRecord: Sendable, Equatable {
    /// The connection number it came on.
    public var connection: Int
    /// When it arrived, since its connection opened.
    public var at: Duration
    public var bytes: Int
    public var width: Int
    public var height: Int
    /// Whether the user was speaking then (inside `activityStart`…`activityEnd`, or speech heard in open mic).
    public var duringUserActivity: Bool
}
