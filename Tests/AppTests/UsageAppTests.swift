@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// Usage in the full-screen app, at the reducer: the header, the `$` view and the transcript records follow each
/// turn's usage; the budget stops the mic and typed turns at the limit and one key goes on; nothing is lost.
final class UsageAppTests: XCTestCase {
    static func config(budget: Double? = nil, mode: Config.Mode = .ptt) -> Config {
        var c = Config()
        c.mode = mode
        c.budget = budget
        c.priceOverrides = [Config.PriceOverride(
            model: LiveModel.defaultID, backend: nil, prices: [.input(.audio): 3, .output(.audio): 12], date: "2026-11-24", source: "test")]
        return c
    }

    var s = AppState(config: UsageAppTests.config(), demo: false, audioAvailable: true, kitty: false)
    var now = 0.0

    @discardableResult
    func on(_ e: AppEvent) -> [Effect] {
        now += 1
        return Reducer.reduce(&s, e, now: now)
    }

    @discardableResult
    func key(_ k: KeyEvent) -> [Effect] { on(.input(.key(k))) }

    /// A turn the way the simulator and the service report it: prompt growing, details short of it, cache, thoughts.
    static func turn(_ i: Int) -> UsageMetadata {
        var u = UsageMetadata(promptTokenCount: 100 * i + 25, responseTokenCount: 40, totalTokenCount: 100 * i + 25 + 40 + 17)
        u.promptTokensDetails = [.init(modality: "TEXT", tokenCount: 60 * i), .init(modality: "AUDIO", tokenCount: 40 * i)]
        u.responseTokensDetails = [.init(modality: "AUDIO", tokenCount: 40)]
        u.thoughtsTokenCount = 17
        if i > 1 {
            u.cachedContentTokenCount = 50
            u.cacheTokensDetails = [.init(modality: "TEXT", tokenCount: 50)]
        }
        return u
    }

    /// Cost by hand: text in 0.75, audio in 3 (config), cached text unknown → priced only when there is none,
    /// text out 4.50 (thoughts), audio out 12.
    static func expectedUSD(_ i: Int) -> Double {
        let textIn = Double(60 * i + 25) * 0.75, audioIn = Double(40 * i) * 3, audioOut = 40.0 * 12, thoughts = 17.0 * 4.5
        return (textIn + audioIn + audioOut + thoughts) / 1_000_000
    }

    func testTheHeaderAndTheUsageViewFollowEachTurnToTheToken() {
        on(.live(.setupComplete(resumed: false)))
        XCTAssertNil(s.ui.header.cost, "no usage, no budget: no cost shown yet")
        let fx = on(.live(.usage(Self.turn(1))))
        XCTAssertTrue(fx.contains(.record(.usage(Self.turn(1)))), "the transcript keeps what was reported")
        XCTAssertEqual(s.ui.header.tokens, 100 + 25 + 40 + 17)
        XCTAssertEqual(s.ui.header.cost, "≈ " + Cost.dollars(Self.expectedUSD(1)))
        XCTAssertEqual(s.usage.total.usd, Self.expectedUSD(1), accuracy: 1e-12)
        XCTAssertEqual(s.ui.header.contextPercent, 0)
        key(KeyEvent(.character("$")))
        guard case .usage(let one)? = s.ui.overlay else { return XCTFail("$ opens the usage view") }
        XCTAssertEqual(one.rows.map(\.turn), [1])
        XCTAssertEqual(one.rows[0].input, 125)
        XCTAssertEqual(one.rows[0].inputAudio, 40)
        XCTAssertEqual(one.rows[0].thoughts, 17)
        XCTAssertEqual(one.rows[0].cumulative, Cost.dollars(Self.expectedUSD(1)))
        XCTAssertEqual(one.notes.first, "1 turn · 182 tokens · ≈ \(Cost.dollars(Self.expectedUSD(1)))")
        // The view stays open and follows the next turn.
        on(.live(.usage(Self.turn(2))))
        guard case .usage(let two)? = s.ui.overlay else { return XCTFail("the usage view closed") }
        XCTAssertEqual(two.rows.count, 2)
        XCTAssertEqual(two.rows[1].cached, 50)
        XCTAssertEqual(two.rows[1].input, 225 - 50, "billed input: the prompt less what is cached")
        XCTAssertEqual(two.rows[1].cost, "?", "cached text has no price in the table: unknown, not guessed")
        XCTAssertEqual(s.ui.header.cost, "≈ $?")
        XCTAssertEqual(s.ui.header.tokens, 182 + 282)
        key(KeyEvent(.character("$")))
        XCTAssertNil(s.ui.overlay)
    }

    func testMissingUsageIsUnknownInTheViewAndTheHeader() {
        on(.live(.usage(UsageMetadata())))
        XCTAssertEqual(s.ui.header.cost, "≈ $?")
        XCTAssertEqual(s.usage.table.rows[0].input, nil)
        XCTAssertTrue(s.usage.summaryLine.hasSuffix("1 without usage"), s.usage.summaryLine)
    }

    // MARK: budget

    func testABudgetStopsTheMicAndTypedTurnsAtTheLimitAndOneKeyGoesOn() {
        s = AppState(config: Self.config(budget: Self.expectedUSD(1) * 1.1), demo: false, audioAvailable: true, kitty: false)
        on(.live(.setupComplete(resumed: false)))
        XCTAssertEqual(s.ui.header.cost, "≈ $0.00", "a budget shows the cost from the start")
        // Talking when the turn's usage arrives: what was said so far still goes out.
        key(KeyEvent(.character(" ")))
        XCTAssertTrue(s.micOpen)
        XCTAssertEqual(s.ui.header.budget, .fine)
        var fx = on(.live(.usage(Self.turn(1))))
        XCTAssertEqual(s.ui.header.budget, .warning(percent: 90))
        XCTAssertTrue(s.ui.transcript.entries.contains { $0.text.contains("90% of it") })
        XCTAssertTrue(s.micOpen, "a warning stops nothing")
        fx = on(.live(.usage(Self.turn(2))))
        XCTAssertEqual(s.ui.header.budget, .reached)
        XCTAssertFalse(s.micOpen, "at the limit the mic closes")
        XCTAssertTrue(fx.contains { if case .mic(.close) = $0 { true } else { false } }, "closed through the gate, the chunk in flight delivered")
        guard case .confirm(let question)? = s.ui.overlay else { return XCTFail("parley asks") }
        XCTAssertEqual(question.title, "Budget reached")
        // No: everything stays stopped; Space asks again, a typed turn stays in the input line.
        key(KeyEvent(.character("n")))
        XCTAssertNil(s.ui.overlay)
        XCTAssertTrue(s.usage.overBudget)
        fx = key(KeyEvent(.character(" ")))
        XCTAssertFalse(s.micOpen)
        XCTAssertFalse(fx.contains(.live(.activityStart)))
        guard case .confirm? = s.ui.overlay else { return XCTFail("Space asks again") }
        key(KeyEvent(.escape))
        key(KeyEvent(.tab))
        for ch in "still there?" { key(KeyEvent(.character(ch))) }
        fx = key(KeyEvent(.enter))
        XCTAssertFalse(fx.contains(.live(.sendText("still there?"))), "nothing typed is sent over the budget")
        XCTAssertEqual(s.ui.input?.text, "still there?", "and nothing typed is lost")
        // Yes: one key, and the next stop is a budget further.
        key(KeyEvent(.character("y")))
        XCTAssertFalse(s.usage.overBudget)
        XCTAssertEqual(s.usage.budget?.allowance ?? 0, Self.expectedUSD(1) * 2.2, accuracy: 1e-12)
        fx = key(KeyEvent(.enter))
        XCTAssertTrue(fx.contains(.live(.sendText("still there?"))), "the kept text goes out now")
    }

    func testInOpenMicTheBudgetMutesAndGoingOnReopens() {
        s = AppState(config: Self.config(budget: Self.expectedUSD(1) / 2, mode: .open), demo: false, audioAvailable: true, kitty: false)
        on(.live(.setupComplete(resumed: false)))
        XCTAssertTrue(s.micOpen)
        on(.live(.usage(Self.turn(1))))
        XCTAssertFalse(s.micOpen)
        on(.live(.connectionClosed(CloseReason(code: 1000, reason: ""))))
        on(.live(.setupComplete(resumed: true)))
        XCTAssertFalse(s.micOpen, "a reconnect does not lift the budget: it is per conversation")
        key(KeyEvent(.character("y")))
        XCTAssertTrue(s.micOpen)
    }

    func testAResumedConversationCarriesWhatItSpent() {
        var earlier = [TranscriptRecord.session(model: LiveModel.defaultID, voice: "Puck"), .usage(Self.turn(1)), .usage(Self.turn(2))]
        earlier.append(.usageCarried(UsageCarry(turns: 3, tokens: 900, usd: 0.5)))
        let carry = Reducer.carriedUsage(earlier, prices: s.usage.prices)
        XCTAssertEqual(carry.turns, 5)
        XCTAssertEqual(carry.tokens, 900 + 182 + 282)
        XCTAssertEqual(carry.unpriced, ["text cached"])
        s = AppState(config: Self.config(budget: 0.5), demo: false, audioAvailable: true, kitty: false)
        s.usage.carry(carry)
        XCTAssertTrue(s.usage.overBudget, "what the earlier parts spent counts against the budget")
        let fx = on(.live(.setupComplete(resumed: true)))
        XCTAssertTrue(fx.contains(.record(.usageCarried(carry))), "this part's transcript says what came before")
        XCTAssertFalse(on(.live(.setupComplete(resumed: true))).contains(.record(.usageCarried(carry))), "once")
    }

    // MARK: export

    func testTheExportHasAPerTurnTableAndTheTotalThatAgreeWithTheApp() {
        on(.live(.setupComplete(resumed: false)))
        var records = [TranscriptRecord.session(model: LiveModel.defaultID, voice: "Puck")]
        for i in 1...3 {
            records.append(.line(speaker: .user, text: "question \(i)", interrupted: false))
            for e in on(.live(.usage(Self.turn(i)))) { if case .record(let r) = e { records.append(r) } }
        }
        let md = TranscriptStore.markdown(records, title: "t", prices: Self.config().priceTable)
        XCTAssertTrue(md.contains("## Usage"), md)
        XCTAssertTrue(md.contains("| 3 | 275 | 180 / 120 / 0 | 50 | 40 | 17 | 382 |"), md)
        XCTAssertTrue(md.contains(s.usage.summaryLine), "the export's total line is the app's exit line: \(md)")
        XCTAssertTrue(md.contains("| **total** | 575 | 360 / 240 / 0 | 100 | 120 | 51 | 846 |"), md)
    }
}

/// `[usage] budget`, `[prices."MODEL"]` and `--budget`: read, checked, printed.
final class UsageConfigTests: XCTestCase {
    func testPricesAndTheBudgetAreReadCheckedAndPrinted() throws {
        var c = Config()
        try c.apply(toml: """
            [usage]
            budget = 0.5

            [prices."gemini-3.8-live"]
            input_audio = 3
            output_audio = 12.5
            backend = "vertex"
            source = "invoice 2026-11"
            """, file: "c.toml")
        XCTAssertEqual(c.budget, 0.5)
        let vertex = c.priceTable.prices(model: "gemini-3.8-live", backend: .vertex)
        XCTAssertEqual(vertex[.output(.audio)]?.usdPerMillion, 12.5)
        XCTAssertEqual(vertex[.input(.audio)]?.source, "invoice 2026-11")
        XCTAssertNil(c.priceTable.prices(model: "gemini-3.8-live", backend: .aiStudio)[.input(.audio)], "only the backend named")
        XCTAssertTrue(c.printed.contains("[prices.\"gemini-3.8-live\"]\nbackend = \"vertex\"\ninput_audio = 3.0\noutput_audio = 12.5"), c.printed)
        XCTAssertTrue(c.printed.contains("[usage]\nbudget = 0.5"), c.printed)
        var again = Config()
        try again.apply(toml: c.printed, file: "printed.toml")
        XCTAssertEqual(again.priceTable, c.priceTable, "the printed config reads back the same")
    }

    func testBadPricesAndBudgetsNameTheKey() {
        for (toml, key) in [
            ("[usage]\nbudget = -1\n", "usage.budget"),
            ("[usage]\nlimit = 1\n", "usage.limit"),
            ("[prices.\"m\"]\ninput_smell = 1\n", "prices.\"m\".input_smell"),
            ("[prices.\"m\"]\ninput_text = \"cheap\"\n", "prices.\"m\".input_text"),
            ("[prices.\"m\"]\nbackend = \"azure\"\n", "prices.\"m\".backend"),
        ] {
            var c = Config()
            XCTAssertThrowsError(try c.apply(toml: toml, file: "c.toml"), toml) { e in
                guard case .config(_, _, let k, _)? = e as? ParleyError else { return XCTFail("\(e)") }
                XCTAssertEqual(k, key, toml)
            }
        }
    }

    func testTheBudgetFlagOverridesTheConfigAndMustBePositive() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-budget-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[usage]\nbudget = 2\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let options = try CommonOptions.parse(["--config", dir + "/c.toml", "--budget", "0.25"])
        XCTAssertEqual(try options.resolve().budget, 0.25)
        XCTAssertEqual(try CommonOptions.parse(["--config", dir + "/c.toml"]).resolve().budget, 2)
        XCTAssertThrowsError(try CommonOptions.parse(["--budget", "0"]))
    }
}
