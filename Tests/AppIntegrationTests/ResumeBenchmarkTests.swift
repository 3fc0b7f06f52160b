@testable import Conversation
import Foundation
import Live
import ParleyTesting
import ParleyTime
import TUI
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// Issue 25's goal for a long conversation, as numbers (PARLEY_BENCH=1; `scripts/bench-history.sh` runs it):
/// a continued conversation of 10,000 turns opens in under 1 s and draws a frame in under 5 ms, and memory
/// stays flat as the transcript grows (bytes per turn).
final class ResumeBenchmarkTests: XCTestCase {
    func testOpeningATenThousandTurnConversation() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1") }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-resume-bench-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let dir = home + "/data/parley"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)

        // 10,000 turns: a question, an answer of two sentences and its usage each.
        let turns = 10_000
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = Data()
        let start = 1_780_000_000.0
        var session = TranscriptRecord.session(model: "gemini-3.8-live", voice: "Kore")
        session.time = Timestamp.iso8601UTC(secondsSince1970: start)
        out.append(try encoder.encode(session) + [0x0A])
        for i in 0..<turns {
            for var r in [
                TranscriptRecord.line(speaker: .user, text: "question \(i): what should I do about the garden this week, given the rain?", interrupted: false),
                TranscriptRecord.line(speaker: .model, text: "Answer \(i). Water less while it rains, and mulch the beds so the soil keeps its warmth overnight.", interrupted: false),
                TranscriptRecord.usage(UsageMetadata(promptTokenCount: 1_000 + i, responseTokenCount: 40, totalTokenCount: 1_040 + i)),
            ] {
                r.time = Timestamp.iso8601UTC(secondsSince1970: start + Double(i) * 20)
                out.append(try encoder.encode(r) + [0x0A])
            }
        }
        let path = dir + "/session-2026-06-01T10-00-00.jsonl"
        try out.write(to: URL(fileURLWithPath: path))
        print(String(format: "resume bench: %d turns, %d records, %.1f MB, %d bytes per turn on disk",
                     turns, 3 * turns + 1, Double(out.count) / 1e6, out.count / turns))

        // Wall time and CPU time (this thread's, plus any child process's): on a shared machine the CPU time
        // is the figure that does not depend on the neighbours.
        func time<T>(_ label: String, runs: Int = 3, _ body: () throws -> T) rethrows -> T {
            var (best, bestCPU) = (Double.infinity, Double.infinity)
            var result: T?
            for _ in 0..<runs {
                let (t0, c0) = (DispatchTime.now().uptimeNanoseconds, Self.cpuMilliseconds())
                result = try body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                bestCPU = min(bestCPU, Self.cpuMilliseconds() - c0)
            }
            print(String(format: "resume bench: %@ %.1f ms, CPU %.1f ms (best of %d)", label, best, bestCPU, runs))
            return result!
        }

        let residentBefore = Self.residentBytes()
        let plan = try time("read + plan + seed (ResumePlan.make)") {
            var config = Config()
            return try ResumePlan.make(nil, directory: dir, handles: ResumeStore(path: home + "/resume.json"), config: &config, chosen: .init())
        }
        print("resume bench: seed \(plan.seed.turns.count) turns, \(plan.seed.leftOut) left out")
        _ = time("the seed into the session's log (ConversationLog)") {
            var log = ConversationLog()
            for t in plan.seed.turns { log.appendTurn(role: t.role ?? "user", t.text) }
            return log.contents.count
        }
        var state = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)
        time("earlier turns on screen + carried usage (initial state)") {
            var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)
            Launch.showEarlier(plan, in: &s.ui.transcript)
            s.usage.carry(Reducer.carriedUsage(plan.records, prices: s.usage.prices))
            state = s
        }
        let grown = Self.residentBytes() - residentBefore
        print(String(format: "resume bench: resident memory for the plan and the screen's transcript: +%.1f MB, %d bytes per turn",
                     Double(grown) / 1e6, grown / turns))

        let grid = GridScreen(rows: 40, columns: 120)
        let renderer = FrameRenderer(screen: grid)
        state.ui.screen = Size(rows: 40, columns: 120)
        time("first frame (everything drawn)", runs: 1) { renderer.render(state.ui) }
        var previous = state.ui
        time("a frame after a new line (dirty regions found by comparing states)", runs: 5) {
            state.ui.transcript.append(.model, "one more line")
            let dirty = DirtyRegions.changed(from: previous, to: state.ui)
            renderer.render(state.ui, dirty: dirty)
            previous = state.ui
        }
        time("page up + frame", runs: 5) {
            renderer.scrollTranscript(.pageUp, in: &state.ui)
            renderer.render(state.ui, dirty: .transcript)
        }
        time("search a common word in 20,000 lines + scroll + frame", runs: 3) {
            var search = SearchState()
            search.find("garden", in: state.ui.transcript)
            state.ui.search = search
            if let id = search.currentEntry { renderer.scrollTranscript(.entry(id), in: &state.ui) }
            renderer.render(state.ui, dirty: .all)
        }

        withExtendedLifetime(plan) {}
        let env = isolatedEnvironment(home: home, ["TZ": "UTC"])
        try time("`parley history show` (process, to a pipe)") {
            let r = try shell([Binaries.parley, "history", "show", "session-2026-06-01"], env: env)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(r.out.contains("question 9999"))
        }
    }

    /// CPU time of this thread and of finished child processes, in milliseconds.
    static func cpuMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        var children = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &children)
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1e3 + Double(t.tv_usec) / 1e3 }
        return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6 + ms(children.ru_utime) + ms(children.ru_stime)
    }

    /// The process's resident memory (`/proc/self/statm`, in pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
