import Conversation
import Foundation
import XCTest

/// A test of `--resume`: a fresh home with a state directory (where the resumption handles are kept) and
/// conversations saved in it on the newest model.
open class ResumeTestCase: XCTestCase {
    package var home: String!
    package var dir: String { home + "/data/parley" }
    package var resumeFile: String { home + "/state/resume.json" }

    override open func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-resume-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/state", withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// Saves a conversation that started at `start`, one said line every 10 seconds; returns its file.
    @discardableResult
    package func conversation(
        at start: Date, model: String = "gemini-3.8-live", voice: String = "Kore", system: String? = nil,
        _ said: [(TranscriptRecord.Speaker, String)]
    ) throws -> String {
        try savedConversation(in: dir, at: start, model: model, voice: voice, system: system, said)
    }

    /// Three days and an hour before now: "3 days ago" however long the test takes.
    package let threeDaysAgo = Date().addingTimeInterval(-3 * 86_400 - 3_600)
}
