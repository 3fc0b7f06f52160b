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

    /// The saved handle if it is still young enough for `model`, with its age in seconds; otherwise why not.
    /// `now` is wall-clock seconds since 1970, the clock `savedAt` was written on.
    func usable(model: String, now: Double = TimeSource.wallSeconds()) -> Result<(Saved, age: Double), ParleyError> {
        guard let saved = load() else {
            return .failure(.usage("nothing to resume: no earlier conversation was saved (start one without --resume)"))
        }
        let age = now - saved.savedAt
        guard age < Self.lifetime else {
            // A file edited by hand may say anything; Int(age / 60) traps beyond Int.max.
            let howOld = age < 366 * 86_400 ? "\(Int(age / 60)) minutes old" : "more than a year old"
            return .failure(.usage("the last conversation is \(howOld); Gemini keeps it for 2 hours only (start a new one without --resume)"))
        }
        guard LiveModel.resourceName(saved.model) == LiveModel.resourceName(model) else {
            return .failure(.usage("the last conversation used \(saved.model); a resumed session cannot change the model (drop --model or --resume)"))
        }
        return .success((saved, age))
    }
}
