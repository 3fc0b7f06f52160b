@testable import Conversation
import AppTesting
import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

@testable import App

/// Issue 25: `parley --resume [ID]` against the simulator (in process, through `RuntimeHarness`) and as a process.
final class ResumeEndToEndTests: ResumeTestCase {
    func testAnUnknownIDFailsBeforeTheTerminalIsTouched() throws {
        try conversation(at: threeDaysAgo, [(.user, "hello")])
        let env = isolatedEnvironment(home: home!)
        let r = try shell([Binaries.parley, "--demo", "--resume", "1999"], env: env)
        XCTAssertEqual(r.status, 64, r.err)
        XCTAssertTrue(r.err.contains("no conversation matches \"1999\"") && r.err.contains("session-"), r.err)
        XCTAssertFalse(r.err.contains("\u{1b}"), "the terminal is untouched")
    }

    // MARK: - end to end, against the simulator

    /// A conversation saved three days ago (and torn by a crash) continues: a new session seeded with what was
    /// said (the simulator records the context), the earlier turns on screen, the new turns in the same file
    /// after the torn line is cut off, `history search` finds a word from it.
    func testAConversationFromThreeDaysAgoContinuesInASeededSession() async throws {
        let path = try conversation(at: threeDaysAgo, [(.user, "my cat is called Zanzibar"), (.model, "What a fine name.")])
        // It ended in a crash, mid-record.
        let torn = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try torn.seekToEnd()
        try torn.write(contentsOf: Data(#"{"kind":"user","text":"and my d"#.utf8))
        try torn.close()
        ResumeStore(path: resumeFile).save(.init(
            handle: Secret("simh-999"), savedAt: threeDaysAgo.timeIntervalSince1970, model: "gemini-3.8-live", voice: "Kore", transcript: path))
        var config = Config()
        let plan = try ResumePlan.make(
            String(ConversationID.id(of: path).dropFirst("session-".count).prefix(12)), directory: dir,
            handles: ResumeStore(path: resumeFile), config: &config, chosen: .init())
        XCTAssertNil(plan.handle, "three days is past the handle's two hours")

        let h = try await RuntimeHarness(home: home, store: try TranscriptStore(continuing: path), resume: plan) { c in
            c.model = config.model
            c.voice = config.voice
        }
        h.start()
        h.waitUntilLive()
        h.wait("the seed to arrive") { h.simulator.stats().contextReceived == ["my cat is called Zanzibar", "What a fine name."] }
        XCTAssertEqual(h.simulator.stats().setups.first?.resumed, false, "a new session")
        XCTAssertEqual(h.simulator.stats().setups.first?.voiceName, "Kore", "the conversation's voice")
        XCTAssertEqual(Array(h.wire.kinds.prefix(2)), ["setup", "clientContent"], "seeded before anything else")
        h.waitForScreen("earlier in this conversation")
        h.waitForScreen("my cat is called Zanzibar")
        h.waitForScreen("seeded with its 2 turns (last saved 3 days ago)")
        h.waitForScreen("3 days old")
        h.waitForScreen("was cut off before adding to it")
        XCTAssertFalse(h.screen.contains("cut short"), "the torn line is named once")

        h.typeTurn("what is my cat called")
        h.waitForScreen("You said: what is my cat called.")
        await h.stop()

        let records = try TranscriptStore.read(path)
        XCTAssertEqual(records.filter { $0.kind == .user }.compactMap(\.said?.text), ["my cat is called Zanzibar", "what is my cat called"])
        XCTAssertEqual(records.filter { $0.kind == .session }.count, 2)
        XCTAssertEqual(records.last(where: { $0.kind == .session })?.session?.continued, true)
        XCTAssertFalse(records.contains { $0.kind == .usageCarried }, "the file already holds the earlier usage")
        XCTAssertEqual(TranscriptStore.sessions(in: dir), [path], "one conversation")
        XCTAssertEqual(TranscriptSearch(["zanzibar"]).search(directory: dir).count, 1)
    }

    /// The latest conversation within two hours: the second run resumes the same session on the service with
    /// the saved handle, and its turns go on in the same file.
    func testTheLatestConversationResumesWithItsHandle() async throws {
        let simulator = LiveSimulator(options: .quick, time: ManualTime().source)
        try await simulator.start()
        let first = try TranscriptStore(directory: dir)
        let h1 = try await RuntimeHarness(sharing: simulator, home: home, store: first)
        h1.start()
        h1.waitUntilLive()
        h1.typeTurn("remember the word pelican")
        h1.waitForScreen("You said: remember the word pelican.")
        let saved = ResumeStore(path: h1.paths.resumeFile)
        h1.wait("the handle to be kept") { saved.load()?.transcript == first.path }
        await h1.stop()

        var config = Config()
        let plan = try ResumePlan.make(nil, directory: dir, handles: saved, config: &config, chosen: .init())
        XCTAssertNotNil(plan.handle)
        XCTAssertEqual(plan.transcript, first.path)
        let h2 = try await RuntimeHarness(sharing: simulator, home: home, store: try TranscriptStore(continuing: plan.transcript), resume: plan)
        h2.start()
        h2.waitUntilLive()
        let setups = simulator.stats().setups
        XCTAssertEqual(setups.count, 2)
        XCTAssertEqual(setups.last?.resumed, true, "the handle resumed the session")
        XCTAssertEqual(setups.last?.sessionID, setups.first?.sessionID, "the same conversation on the service")
        XCTAssertEqual(simulator.stats().contextReceived, [], "nothing to seed: the service still has it")
        h2.waitForScreen("resuming the conversation from")
        h2.waitForScreen("remember the word pelican")
        h2.typeTurn("and now a second thing")
        h2.waitForScreen("You said: and now a second thing.")
        await h2.stop()
        try await simulator.stop()

        let records = try TranscriptStore.read(first.path)
        XCTAssertEqual(records.filter { $0.kind == .user }.compactMap(\.said?.text), ["remember the word pelican", "and now a second thing"])
        XCTAssertEqual(TranscriptStore.sessions(in: dir), [first.path])
    }
}
