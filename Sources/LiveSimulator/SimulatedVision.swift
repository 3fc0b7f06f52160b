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

    /// What a reply describes: the last picture and how many were shown with it.
    struct Shown: Sendable, Equatable {
        var jpeg: Data
        var width: Int
        var height: Int
        var frames: Int
    }

    /// Frames accepted since the last reply about pictures.
    private(set) var framesThisTurn = 0
    /// Frames and images accepted on this connection (each stays in the context).
    private(set) var framesAccepted = 0
    /// Of those, how many came while the user was speaking (inside the turn, not between turns).
    private var framesDuringActivity = 0
    private var lastFrame: (jpeg: Data, header: JPEGHeader)?
    private var lastAcceptedAt: Duration?
    /// The picture last described, for a later question about it.
    private var lastShown: Shown?

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
        framesAccepted += 1
        if userSpeaking { framesDuringActivity += 1 }
        lastFrame = (blob.data, header)
        let record = VideoFrameRecord(
            connection: connection, at: now, bytes: blob.data.count, width: header.width, height: header.height,
            duringUserActivity: userSpeaking)
        directory.record { $0.videoFrames.append(record) }
        return nil
    }

    /// The picture a turn should be answered about: frames shown while the user spoke in this turn, or a
    /// question about what was shown (an image sent before a typed question, a question after the camera).
    /// Nil: the turn is about something else, and gets its scripted reply.
    mutating func take(for question: String) -> Shown? {
        let asked = Self.asksAboutPicture(question)
        if let last = lastFrame, framesThisTurn > 0, framesDuringActivity > 0 || asked {
            lastShown = Shown(jpeg: last.jpeg, width: last.header.width, height: last.header.height, frames: framesThisTurn)
            framesThisTurn = 0
            framesDuringActivity = 0
            return lastShown
        }
        return asked ? lastShown : nil
    }

    /// Words that make a question one about the picture.
    static let pictureWords = ["image", "picture", "photo", "colour", "color", "see", "look", "screen", "camera", "frame",
                               "video", "diagram", "holding", "shown", "clip", "happens"]

    static func asksAboutPicture(_ question: String) -> Bool {
        let words = question.lowercased().split { !$0.isLetter }
        return words.contains { w in pictureWords.contains { w.hasPrefix($0) } }
    }

    /// What the simulator can honestly say about a picture: how many, their size, the last one's average colour.
    static func answer(_ shown: Shown, colour: FrameColour?) -> String {
        let size = "\(shown.width) by \(shown.height) pixels"
        let what = shown.frames == 1 ? "one image, \(size)" : "\(shown.frames) frames, the last one \(size)"
        guard let c = colour else {
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
