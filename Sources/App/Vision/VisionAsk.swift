import Conversation
import Foundation
import Live

/// The picture side of `parley ask`: attached images go out before the question, paced as the service takes
/// frames (one a second).
enum VisionAsk {
    /// Loads every `--image` file, failing on the first that cannot be used.
    static func load(_ paths: [String], resolution: MediaResolution) throws(ParleyError) -> [AttachedImage] {
        var images: [AttachedImage] = []
        for path in paths { images.append(try AttachedImage.load(path, resolution: resolution)) }
        return images
    }

    /// What ask prints for an attached image: a transcript line, or a JSON event.
    static func line(for image: AttachedImage, json: Bool) -> String {
        guard json else { return "[image] \(image.summary)\n" }
        let fields: [String: JSONValue] = [
            "event": "image", "file": .string(image.fileName), "fileBytes": .number(Double(image.fileBytes)),
            "width": .number(Double(image.encoded.width)), "height": .number(Double(image.encoded.height)),
            "jpegBytes": .number(Double(image.encoded.jpeg.count)),
        ]
        return JSONValue.object(fields).compactText + "\n"
    }

    /// Sends `images` one per ``FramePacer/interval`` and then runs `ask`; with no images, `ask` runs at once.
    static func send(_ images: [AttachedImage], over session: LiveSession, then ask: @escaping @Sendable () -> Void) {
        guard !images.isEmpty else { return ask() }
        let frames = images.map(\.encoded.jpeg)
        Task {
            for (i, jpeg) in frames.enumerated() {
                if i > 0 { try? await Task.sleep(for: FramePacer.interval) }
                session.sendVideo(jpeg)
            }
            ask()
        }
    }
}
