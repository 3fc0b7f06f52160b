import Foundation
import Live
import ParleyTime

/// The last conversation's resumption handle, kept across runs in a file only the user can read. The handle is
/// a secret: it is written here and sent in `setup`, nowhere else.
struct ResumeStore {
    let path: String

    struct Saved: Codable {
        var handle: Secret
        /// Wall-clock time the handle arrived (seconds since 1970).
        var savedAt: Double
        var model: String
        var voice: String
        /// The transcript file of the conversation, to show it again.
        var transcript: String?
    }

    /// A handle is usable for 2 hours after the connection that gave it ends.
    static let lifetime: Double = 2 * 60 * 60

    func save(_ saved: Saved) {
        guard let data = try? JSONEncoder().encode(saved) else { return }
        Paths.writePrivately(data, to: path)
    }

    func load() -> Saved? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Saved.self, from: data)
    }

    /// The saved handle if it belongs to the conversation saved in `transcript` and is still young enough for
    /// `model`, with its age in seconds; otherwise why not, in words for the screen. `now` is wall-clock seconds
    /// since 1970, the clock `savedAt` was written on.
    func handle(for transcript: String, model: String, now: Double = TimeSource.wallSeconds()) -> Result<(Saved, age: Double), HandleRefusal> {
        guard let saved = load(), let path = saved.transcript,
            ConversationID.id(of: path) == ConversationID.id(of: transcript)
        else { return .failure(HandleRefusal("only the latest conversation keeps a resumption handle")) }
        let age = now - saved.savedAt
        guard age < Self.lifetime else {
            return .failure(HandleRefusal("its resumption handle is \(ResumePlan.span(age)) old and Gemini keeps one for 2 hours"))
        }
        guard LiveModel.resourceName(saved.model) == LiveModel.resourceName(model) else {
            return .failure(HandleRefusal("it used \(saved.model), and a resumed session cannot change the model"))
        }
        return .success((saved, age))
    }

    /// Why a saved handle cannot continue a conversation.
    struct HandleRefusal: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
