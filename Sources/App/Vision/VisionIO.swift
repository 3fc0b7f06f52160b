import Conversation
import Foundation
import Live
import TUI

/// Carries out `VisionCommand`s for the interactive app: loads and encodes attachments and sends them (off the
/// main thread, one at a time, paced with camera frames), and drives the camera or screen streamer. What it
/// learns goes back to the reducer as `VisionEvent`s.
final class VisionIO: Sendable {
    /// The camera or screen, when parley was started with one.
    let streamer: FrameStreamer?
    /// Why the configured camera or screen cannot be used at all (e.g. no screen in this session).
    let unavailable: String?
    /// The configured source's label, for the header (also when unavailable).
    let sourceLabel: String?
    private let wire: VideoWire
    private let resolution: MediaResolution
    private let post: @Sendable (AppEvent) -> Void
    /// Loads and sends run here, in order: an image goes out before the question typed with it.
    private let queue = DispatchQueue(label: "parley.vision")

    init(settings: VisionSettings, wire: VideoWire, post: @escaping @Sendable (AppEvent) -> Void,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.wire = wire
        self.post = post
        resolution = settings.effectiveResolution
        switch settings.captureInput(environment: environment) {
        case nil:
            streamer = nil
            unavailable = nil
            sourceLabel = nil
        case .success(let input)?:
            streamer = FrameStreamer(input: input, resolution: settings.effectiveResolution, timing: settings.frames, wire: wire) {
                post(.vision(.status($0, thumbnail: $1)))
            }
            unavailable = nil
            sourceLabel = input.label
        case .failure(let why)?:
            streamer = nil
            unavailable = why.description
            sourceLabel = settings.source?.rawValue
        }
    }

    /// Runs one command; returns what it reports at once (Tab completion), the rest arrives as events.
    func perform(_ command: VisionCommand) -> [AppEvent] {
        switch command {
        case .load(let request):
            let resolution = self.resolution, post = self.post
            queue.async { post(.vision(Self.load(request, resolution: resolution))) }
        case .complete(let word):
            return [.vision(.completed(word: word, completion: AttachmentInput.complete(word)))]
        case .send(let images, let question):
            let wire = self.wire, post = self.post
            queue.async { post(.vision(Self.send(images, question: question, over: wire))) }
        case .share(let on):
            streamer?.setSharing(on)
        case .talking(let talking):
            streamer?.setTalking(talking)
        }
        return []
    }

    /// What the reducer starts with: the source, shared from the start when it can be.
    func initialState(framesAlways: Bool) -> VisionState {
        var state = VisionState(source: sourceLabel, available: streamer != nil, sharing: streamer != nil, framesAlways: framesAlways)
        if let unavailable, let sourceLabel {
            state.status = VisionStatus(source: sourceLabel, sharing: false, framesSent: 0, bytesPerFrame: 0, problem: unavailable)
        }
        return state
    }

    /// Stops the camera or screen.
    func stop() { streamer?.stop() }

    static func load(_ request: VisionCommand.Request, resolution: MediaResolution) -> VisionEvent {
        let paths: [String], question: String?
        switch request {
        case .typed(let line):
            let parsed = AttachmentInput.parse(line)
            if let missing = parsed.missing.first { return .failed("\(missing): no such image file — nothing was sent") }
            paths = parsed.paths
            question = parsed.text
        case .prompt(let path):
            paths = [path]
            question = nil
        }
        do {
            return .loaded(try VisionAsk.load(paths, resolution: resolution), question: question)
        } catch {
            return .failed("\(error.description) — nothing was sent")
        }
    }

    static func send(_ images: [AttachedImage], question: String?, over wire: VideoWire) -> VisionEvent {
        var sent: [AttachedImage] = []
        for image in images {
            guard wire.sendWhenAllowed(image.encoded.jpeg) else {
                return .sent(sent, thumbnail: thumbnail(sent.last), question: question,
                             failure: "not connected: \(image.fileName) was not sent")
            }
            sent.append(image)
        }
        return .sent(sent, thumbnail: thumbnail(sent.last), question: question, failure: nil)
    }

    static func thumbnail(_ image: AttachedImage?) -> Thumbnail? {
        guard let image else { return nil }
        return ThumbnailDecoder.decode(image.encoded.jpeg, caption: "\(image.fileName) \(image.encoded.width)×\(image.encoded.height)")
    }
}
