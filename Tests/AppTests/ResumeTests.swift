import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

@testable import App

/// Issue 25: `parley --resume [ID]` continues any saved conversation — through its handle while it lives, else
/// in a new session seeded with what was said — and adds the new turns to the same transcript.
final class ResumeTests: XCTestCase {
    var home: String!
    var dir: String { home + "/data/parley" }
    var resumeFile: String { home + "/state/resume.json" }

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-resume-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/state", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: home) }

    /// Saves a conversation that started at `start`, one said line every 10 seconds; returns its file.
    @discardableResult
    func conversation(
        at start: Date, model: String = "gemini-3.8-live", voice: String = "Kore", system: String? = nil,
        _ said: [(String, String)]
    ) throws -> String {
        try savedConversation(in: dir, at: start, model: model, voice: voice, system: system, said)
    }

    /// Three days and an hour before now: "3 days ago" however long the test takes.
    let threeDaysAgo = Date().addingTimeInterval(-3 * 86_400 - 3_600)

    // MARK: - the option and the plan

    func testABareResumeMeansTheLatest() {
        XCTAssertEqual(ResumePlan.normalized(["--resume"]), ["--resume=latest"])
        XCTAssertEqual(ResumePlan.normalized(["--resume", "--demo"]), ["--resume=latest", "--demo"])
        XCTAssertEqual(ResumePlan.normalized(["--resume", "2026-11"]), ["--resume", "2026-11"])
        XCTAssertEqual(ResumePlan.normalized(["--demo"]), ["--demo"])
    }

    func testIDsResolveByUniquePrefixAndSayWhatMatchesWhenTheyDoNot() throws {
        let first = try conversation(at: Date(timeIntervalSince1970: 1_790_000_000), [("user", "one")])
        let second = try conversation(at: Date(timeIntervalSince1970: 1_790_000_060), [("user", "two")])
        let latest = try conversation(at: Date(), [("user", "three")])
        XCTAssertEqual(try ConversationID.resolve(nil, in: dir), latest)
        XCTAssertEqual(try ConversationID.resolve("latest", in: dir), latest)
        XCTAssertEqual(try ConversationID.resolve(ConversationID.id(of: second), in: dir), second)
        let secondID = ConversationID.id(of: second)
        XCTAssertEqual(try ConversationID.resolve(String(secondID.dropFirst("session-".count)), in: dir), second, "without session-")
        let shared = String(ConversationID.id(of: first).prefix("session-2026-09-21".count))  // the day both share
        XCTAssertThrowsError(try ConversationID.resolve(shared, in: dir)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("matches 2 conversations") && text.contains(ConversationID.id(of: first))
                && text.contains(secondID), text)
        }
        XCTAssertThrowsError(try ConversationID.resolve("1999", in: dir)) { e in
            XCTAssertTrue("\(e)".contains("no conversation matches \"1999\"") && "\(e)".contains(ConversationID.id(of: latest)), "\(e)")
        }
    }

    func testThePlanCarriesTheModelVoiceAndSystemUnlessTheCommandLineChoseThem() throws {
        let path = try conversation(
            at: threeDaysAgo, model: "gemini-2.5-flash-native-audio-preview-12-2025", voice: "Kore", system: "You are a pirate.",
            [("user", "ahoy"), ("model", "Arr.")])
        var config = Config()
        let plan = try ResumePlan.make(nil, directory: dir, handles: ResumeStore(path: resumeFile), config: &config, chosen: .init())
        XCTAssertEqual(plan.transcript, path)
        XCTAssertEqual(config.model, "gemini-2.5-flash-native-audio-preview-12-2025")
        XCTAssertEqual(config.voice, "Kore")
        XCTAssertEqual(config.systemInstruction, "You are a pirate.")
        XCTAssertNil(plan.handle)
        XCTAssertEqual(plan.seed.turns.map(\.text), ["ahoy", "Arr."])
        XCTAssertEqual(plan.seed.turns.map(\.role), ["user", "model"])
        XCTAssertTrue(plan.continuation(now: Date().timeIntervalSince1970).joined().contains("3 days ago"), "\(plan.continuation(now: Date().timeIntervalSince1970))")

        var chosen = Config()
        chosen.voice = "Puck"
        _ = try ResumePlan.make(
            nil, directory: dir, handles: ResumeStore(path: resumeFile), config: &chosen, chosen: .init(model: true, voice: true, system: false))
        XCTAssertEqual(chosen.model, Config().model, "--model wins")
        XCTAssertEqual(chosen.voice, "Puck", "--voice wins")
        XCTAssertEqual(chosen.systemInstruction, "You are a pirate.")
    }

    func testTheHandleIsUsedOnlyForItsConversationWithinTwoHours() throws {
        let old = try conversation(at: threeDaysAgo, [("user", "old")])
        let latest = try conversation(at: Date(), [("user", "new")])
        let handles = ResumeStore(path: resumeFile)
        handles.save(.init(handle: Secret("simh-1"), savedAt: Date().timeIntervalSince1970 - 600, model: "gemini-3.8-live", voice: "Kore", transcript: latest))
        var config = Config()
        let fresh = try ResumePlan.make(nil, directory: dir, handles: handles, config: &config, chosen: .init())
        XCTAssertEqual(fresh.handle?.secret.revealed, "simh-1")
        XCTAssertEqual(fresh.continuation(now: Date().timeIntervalSince1970), ["resuming the conversation from 10 min ago"])
        let other = try ResumePlan.make(ConversationID.id(of: old), directory: dir, handles: handles, config: &config, chosen: .init())
        XCTAssertNil(other.handle)
        XCTAssertEqual(other.noHandle, "only the latest conversation keeps a resumption handle")
        handles.save(.init(handle: Secret("simh-1"), savedAt: Date().timeIntervalSince1970 - 3 * 3_600, model: "gemini-3.8-live", voice: "Kore", transcript: latest))
        let stale = try ResumePlan.make(nil, directory: dir, handles: handles, config: &config, chosen: .init())
        XCTAssertNil(stale.handle)
        XCTAssertFalse(stale.continuation(now: Date().timeIntervalSince1970).joined().contains("simh"), "a handle never reaches the screen")
        XCTAssertTrue(stale.noHandle?.contains("3 h old") == true, stale.noHandle ?? "")
    }

    // MARK: - the seed

    func testTheSeedKeepsTheNewestTurnsThatFitAndCountsTheRest() {
        var records = [TranscriptRecord.session(model: "gemini-3.1-flash-live-preview", voice: "Puck")]
        // 100 turns of 1,000 bytes each (about 250 tokens): 3.1's window is 32,768 tokens, half of it holds 65.
        for i in 0..<100 {
            records.append(.line(speaker: i % 2 == 0 ? "user" : "model", text: String(format: "%04d", i) + String(repeating: "x", count: 996), interrupted: false))
            records.append(.usage(UsageMetadata()))
        }
        let small = ResumeSeed(records, model: "gemini-3.1-flash-live-preview")
        XCTAssertEqual(small.tokenBudget, 16_384)
        XCTAssertEqual(small.turns.count, 65)
        XCTAssertEqual(small.leftOut, 35)
        XCTAssertEqual(small.turns.first?.text.prefix(4), "0035", "the newest are kept, in order")
        XCTAssertEqual(small.turns.last?.text.prefix(4), "0099")
        XCTAssertEqual(small.turns.first?.role, "model")

        let big = ResumeSeed(records, model: "gemini-3.8-live")
        XCTAssertEqual(big.turns.count, 100, "a 128k window holds them all")
        XCTAssertEqual(big.leftOut, 0)

        let byCharacters = ResumeSeed(records, model: "gemini-3.8-live", characterBudget: 10_000)
        XCTAssertEqual(byCharacters.turns.count, 10, "and no more than the session's log keeps")
        XCTAssertEqual(byCharacters.leftOut, 90)

        // What the session would send: the same turns, nothing dropped by the log.
        var log = ConversationLog()
        for t in small.turns { log.appendTurn(role: t.role ?? "user", t.text) }
        XCTAssertEqual(log.contents.count, 65)
    }

    // MARK: - the transcript file

    func testContinuingAFileCutsATornLastLineAndAppends() throws {
        let path = try conversation(at: threeDaysAgo, [("user", "before the crash")])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"kind":"model","text":"cut sh"#.utf8))
        try handle.close()
        let before = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)

        let store = try TranscriptStore(continuing: path)
        XCTAssertTrue(store.continuing)
        XCTAssertEqual(store.cutOff, #"{"kind":"model","text":"cut sh"#.utf8.count)
        store.append(.session(model: "gemini-3.8-live", voice: "Kore", continued: true))
        store.append(.line(speaker: "user", text: "after the crash", interrupted: false))
        store.close()

        let reading = try TranscriptReader.read(path)
        XCTAssertTrue(reading.problems.isEmpty, reading.unread ?? "")
        XCTAssertEqual(reading.records.compactMap(\.text), ["before the crash", "after the crash"])
        XCTAssertEqual(reading.records.filter { $0.kind == "session" }.map { $0.resumed == true }, [false, true])
        XCTAssertGreaterThan(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int), before)
        XCTAssertEqual(HistoryIndex.summaries(in: dir).count, 1, "history shows one conversation")
        XCTAssertEqual(HistoryIndex.summaries(in: dir).first?.turns, 2)
    }

    func testAnUnknownIDFailsBeforeTheTerminalIsTouched() throws {
        try conversation(at: threeDaysAgo, [("user", "hello")])
        let env = ["HOME": home!, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state",
                   "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let r = try shell([Binaries.parley, "--demo", "--resume", "1999"], env: env)
        XCTAssertEqual(r.status, 64, r.err)
        XCTAssertTrue(r.err.contains("no conversation matches \"1999\"") && r.err.contains("session-"), r.err)
        XCTAssertFalse(r.err.contains("\u{1b}"), "the terminal is untouched")
    }

    // MARK: - end to end, against the simulator

    /// A conversation saved three days ago continues: a new session seeded with what was said (the simulator
    /// records the context), the earlier turns on screen, the new turns in the same file, `history search`
    /// finds a word from it.
    func testAConversationFromThreeDaysAgoContinuesInASeededSession() async throws {
        let path = try conversation(at: threeDaysAgo, [("user", "my cat is called Zanzibar"), ("model", "What a fine name.")])
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

        h.typeTurn("what is my cat called")
        h.waitForScreen("You said: what is my cat called.")
        await h.stop()

        let records = try TranscriptStore.read(path)
        XCTAssertEqual(records.filter { $0.kind == "user" }.compactMap(\.text), ["my cat is called Zanzibar", "what is my cat called"])
        XCTAssertEqual(records.filter { $0.kind == "session" }.count, 2)
        XCTAssertEqual(records.last(where: { $0.kind == "session" })?.resumed, true)
        XCTAssertFalse(records.contains { $0.kind == "usageCarried" }, "the file already holds the earlier usage")
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
        XCTAssertEqual(records.filter { $0.kind == "user" }.compactMap(\.text), ["remember the word pelican", "and now a second thing"])
        XCTAssertEqual(TranscriptStore.sessions(in: dir), [first.path])
    }
}
