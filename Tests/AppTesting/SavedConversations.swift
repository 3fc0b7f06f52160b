import Conversation
import Foundation
import ParleyTesting
import XCTest

@testable import App

/// Saves a conversation in `dir` that started at `start`, one said line every 10 seconds, then `extra`;
/// returns its file.
package func savedConversation(
    in dir: String, at start: Date, model: String, voice: String, system: String?, _ said: [(TranscriptRecord.Speaker, String)],
    extra: [TranscriptRecord] = []
) throws -> String {
    var now = start
    let store = try TranscriptStore(directory: dir, clock: { now })
    store.append(.session(model: model, voice: voice, system: system))
    for (kind, text) in said {
        now += 10
        store.append(.line(speaker: kind, text: text, interrupted: false))
    }
    for r in extra { store.append(r) }
    store.close()
    return store.path
}

/// A test with a fresh home whose transcripts are in `dir`, for `parley history`, search, show and export.
open class SavedConversationsTestCase: XCTestCase {
    package var home: String!
    package var dir: String { home + "/data/parley" }

    override open func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-history-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// The environment `parley` runs in: this home, UTC, no colours.
    package func env() -> [String: String] {
        isolatedEnvironment(home: home!, ["TZ": "UTC"])
    }

    /// Saves a conversation that started at `start` with one said line every 10 seconds; returns its ID.
    @discardableResult
    package func conversation(
        at start: Date, model: String = "gemini-live-test", voice: String = "Puck", system: String? = nil,
        _ said: [(TranscriptRecord.Speaker, String)], extra: [TranscriptRecord] = []
    ) throws -> String {
        ConversationID.id(of: try savedConversation(in: dir, at: start, model: model, voice: voice, system: system, said, extra: extra))
    }

    /// `n` days after 2026-09-21 14:13:20 UTC.
    package func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 86_400) }
}
