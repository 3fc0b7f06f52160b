@testable import Conversation
import AppTesting
import Foundation
import Live
import XCTest

@testable import App

/// Issue 25: `parley --resume [ID]` continues any saved conversation — through its handle while it lives, else
/// in a new session seeded with what was said — and adds the new turns to the same transcript. The plan, the
/// seed and the file here; against the simulator and as a process in `ResumeEndToEndTests`.
final class ResumeTests: ResumeTestCase {
    // MARK: - the option and the plan

    func testABareResumeMeansTheLatest() {
        XCTAssertEqual(ResumePlan.normalized(["--resume"]), ["--resume=latest"])
        XCTAssertEqual(ResumePlan.normalized(["--resume", "--demo"]), ["--resume=latest", "--demo"])
        XCTAssertEqual(ResumePlan.normalized(["--resume", "2026-11"]), ["--resume", "2026-11"])
        XCTAssertEqual(ResumePlan.normalized(["--demo"]), ["--demo"])
    }

    func testIDsResolveByUniquePrefixAndSayWhatMatchesWhenTheyDoNot() throws {
        let first = try conversation(at: Date(timeIntervalSince1970: 1_790_000_000), [(.user, "one")])
        let second = try conversation(at: Date(timeIntervalSince1970: 1_790_000_060), [(.user, "two")])
        let latest = try conversation(at: Date(), [(.user, "three")])
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
            [(.user, "ahoy"), (.model, "Arr.")])
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
        let old = try conversation(at: threeDaysAgo, [(.user, "old")])
        let latest = try conversation(at: Date(), [(.user, "new")])
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
            records.append(.line(speaker: i % 2 == 0 ? .user : .model, text: String(format: "%04d", i) + String(repeating: "x", count: 996), interrupted: false))
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
        let path = try conversation(at: threeDaysAgo, [(.user, "before the crash")])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"kind":"model","text":"cut sh"#.utf8))
        try handle.close()
        let before = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)

        let store = try TranscriptStore(continuing: path)
        XCTAssertTrue(store.continuing)
        XCTAssertEqual(store.cutOff, #"{"kind":"model","text":"cut sh"#.utf8.count)
        store.append(.session(model: "gemini-3.8-live", voice: "Kore", continued: true))
        store.append(.line(speaker: .user, text: "after the crash", interrupted: false))
        store.close()

        let reading = try TranscriptReader.read(path)
        XCTAssertTrue(reading.problems.isEmpty, reading.unread ?? "")
        XCTAssertEqual(reading.records.compactMap(\.said?.text), ["before the crash", "after the crash"])
        XCTAssertEqual(reading.records.compactMap(\.session).map(\.continued), [false, true])
        XCTAssertGreaterThan(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int), before)
        XCTAssertEqual(HistoryIndex.summaries(in: dir).count, 1, "history shows one conversation")
        XCTAssertEqual(HistoryIndex.summaries(in: dir).first?.turns, 2)
    }

}
