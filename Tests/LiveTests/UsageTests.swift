import Foundation
import XCTest

@testable import Live

final class UsageTests: XCTestCase {
    func decode(_ json: String) throws -> UsageMetadata {
        try JSONDecoder().decode(UsageMetadata.self, from: Data(json.utf8))
    }

    /// The 3.8 capture from PROTOCOL.md: details fall short of the prompt; thoughts are apart.
    let capture = #"""
        {"promptTokenCount": 522, "responseTokenCount": 42, "totalTokenCount": 564,
         "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 332}, {"modality": "AUDIO", "tokenCount": 165}],
         "responseTokensDetails": [{"modality": "AUDIO", "tokenCount": 42}], "thoughtsTokenCount": 136}
        """#

    func testACapturedTurnKeepsItsTotalsAsReportedAndNamesTheGap() throws {
        let t = TurnUsage(try decode(capture))
        XCTAssertEqual(t.prompt, 522)
        XCTAssertEqual(t.promptByModality?[.text], 332)
        XCTAssertEqual(t.promptByModality?[.audio], 165)
        XCTAssertEqual(t.unattributedPrompt, 25, "the details cover 497 of 522")
        XCTAssertEqual(t.responseByModality?[.audio], 42)
        XCTAssertEqual(t.thoughts, 136)
        XCTAssertEqual(t.total, 564, "the reported total, not a sum of the parts")
        XCTAssertEqual(t.billedInput, 522)
        XCTAssertNil(t.cached)
    }

    func testVertexNamesAndSnakeCaseDecodeToTheSameValue() throws {
        let vertex = try decode(#"""
            {"promptTokenCount": 100, "candidatesTokenCount": 40, "totalTokenCount": 140, "trafficType": "ON_DEMAND",
             "candidatesTokensDetails": [{"modality": "AUDIO", "tokenCount": 40}]}
            """#)
        XCTAssertEqual(vertex.responseTokenCount, 40)
        XCTAssertEqual(vertex.responseTokensDetails?.first?.tokenCount, 40)
        XCTAssertEqual(vertex.trafficType, "ON_DEMAND")
        let snake = try decode(#"""
            {"prompt_token_count": 100, "candidates_token_count": 40, "total_token_count": 140, "traffic_type": "ON_DEMAND",
             "candidates_tokens_details": [{"modality": "AUDIO", "token_count": 40}], "cached_content_token_count": "7"}
            """#)
        XCTAssertEqual(snake.promptTokenCount, 100)
        XCTAssertEqual(snake.responseTokenCount, 40)
        XCTAssertEqual(snake.responseTokensDetails, vertex.responseTokensDetails)
        XCTAssertEqual(snake.cachedContentTokenCount, 7, "an int64 as a string")
    }

    func testVertexNamingEncodesCandidatesAndDecodesBack() throws {
        var u = UsageMetadata(promptTokenCount: 10, responseTokenCount: 5, totalTokenCount: 15)
        u.responseTokensDetails = [.init(modality: "AUDIO", tokenCount: 5)]
        let text = try LiveCodec().encode(ServerMessage(usageMetadata: u), usageNaming: .vertex)
        XCTAssertTrue(text.contains("candidatesTokenCount"))
        XCTAssertFalse(text.contains("responseTokenCount"))
        XCTAssertEqual(try LiveCodec().decodeServer(Data(text.utf8)).usageMetadata, u)
        XCTAssertTrue(try LiveCodec().encode(ServerMessage(usageMetadata: u)).contains("responseTokenCount"))
    }

    func testNonsenseIsNeverNegativeAndNeverFatal() throws {
        let u = try decode(#"{"promptTokenCount": 10, "cachedContentTokenCount": 900, "totalTokenCount": "x", "thoughtsTokenCount": -5, "responseTokenCount": 9223372036854775807, "promptTokensDetails": [{"modality": "AUDIO", "tokenCount": 50}]}"#)
        let t = TurnUsage(u)
        XCTAssertEqual(t.prompt, 10)
        XCTAssertNil(t.thoughts, "a negative count is not a count")
        XCTAssertNil(t.response, "beyond int32: absent, so no sum can overflow")
        XCTAssertEqual(t.billedInput, 0, "more cached than prompt bills nothing, not a negative amount")
        XCTAssertEqual(t.unattributedPrompt, 0, "details beyond the total: no negative gap")
        XCTAssertNil(t.reportedTotal, "a total of the wrong type is unknown")
        XCTAssertEqual(t.total, 10)
    }

    func testMissingUsageIsUnknownNotZero() throws {
        let t = TurnUsage(try decode("{}"))
        XCTAssertNil(t.total)
        XCTAssertNil(t.billedInput)
        var ledger = UsageLedger(inputTokenLimit: 131_072)
        ledger.record(try decode("{}"))
        XCTAssertEqual(ledger.unknownTurns, 1)
        XCTAssertNil(ledger.contextTokens)
        XCTAssertNil(ledger.contextPercent)
        let cost = PriceTable.published.prices(model: "gemini-2.5-flash-native-audio-preview-12-2025", backend: .aiStudio).cost(of: t)
        XCTAssertFalse(cost.isKnown)
        XCTAssertEqual(cost.long, "unknown (no price for usage not reported)")
    }

    func testTheLedgerSumsTurnsAndMeasuresTheContextAgainstTheWindow() throws {
        var ledger = UsageLedger(inputTokenLimit: LiveModel.traits(of: "gemini-3.8-live").inputTokenLimit, slidingWindow: true)
        ledger.record(try decode(capture))
        ledger.record(try decode(#"{"promptTokenCount": 700, "cachedContentTokenCount": 500, "responseTokenCount": 60, "totalTokenCount": 760}"#))
        XCTAssertEqual(ledger.turnCount, 2)
        XCTAssertEqual(ledger.tokens, 564 + 760)
        XCTAssertEqual(ledger.sum.billedInput, 522 + 200)
        XCTAssertEqual(ledger.contextTokens, 760)
        XCTAssertEqual(ledger.inputTokenLimit, 131_072)
        XCTAssertEqual(ledger.contextPercent, 1)
        ledger.carried = UsageCarry(turns: 3, tokens: 1000, usd: 0.01)
        XCTAssertEqual(ledger.turnCount, 5)
        XCTAssertEqual(ledger.tokens, 564 + 760 + 1000)
    }

    func testTheModelTableKnowsEachWindow() {
        XCTAssertEqual(LiveModel.traits(of: "gemini-3.8-live").inputTokenLimit, 131_072)
        XCTAssertEqual(LiveModel.traits(of: "gemini-2.5-flash-native-audio-preview-12-2025").inputTokenLimit, 131_072)
        XCTAssertEqual(LiveModel.traits(of: "gemini-3.1-flash-live-preview").inputTokenLimit, 32_768)
    }

    // MARK: money

    let prices = ModelPrices(model: "m", backend: .aiStudio, prices: [
        .input(.text): Price(0.5, date: "d", source: "s"), .input(.audio): Price(3, date: "d", source: "s"),
        .cached(.text): Price(0.125, date: "d", source: "s"),
        .output(.text): Price(2, date: "d", source: "s"), .output(.audio): Price(12, date: "d", source: "s"),
    ])

    func testCostIsTokensTimesPricesWithTheGapAsTextAndThoughtsAsTextOutput() throws {
        let cost = prices.cost(of: TurnUsage(try decode(capture)))
        // input: text 332 + gap 25 at 0.5, audio 165 at 3; output: audio 42 at 12, thoughts 136 at 2.
        let textIn: Double = 357 * 0.5, audioIn: Double = 165 * 3, audioOut: Double = 42 * 12, thoughts: Double = 136 * 2
        let expected = (textIn + audioIn + audioOut + thoughts) / 1_000_000
        XCTAssertEqual(cost.usd, expected, accuracy: 1e-12)
        XCTAssertTrue(cost.isKnown)
    }

    func testCachedTokensArePricedAtTheCachedRateAndNotAgainAsInput() throws {
        let u = try decode(#"""
            {"promptTokenCount": 1000, "cachedContentTokenCount": 400, "responseTokenCount": 10, "totalTokenCount": 1010,
             "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1000}], "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 400}],
             "responseTokensDetails": [{"modality": "TEXT", "tokenCount": 10}]}
            """#)
        let cost = prices.cost(of: TurnUsage(u))
        let fresh: Double = 600 * 0.5, cached: Double = 400 * 0.125, out: Double = 10 * 2
        XCTAssertEqual(cost.usd, (fresh + cached + out) / 1_000_000, accuracy: 1e-12)
    }

    func testAnUnknownPriceMakesTheCostSaySoInsteadOfGuessing() throws {
        var u = try decode(capture)
        u.promptTokensDetails?.append(.init(modality: "VIDEO", tokenCount: 0))
        let video = try decode(#"{"promptTokenCount": 300, "totalTokenCount": 300, "promptTokensDetails": [{"modality": "VIDEO", "tokenCount": 300}]}"#)
        let cost = prices.cost(of: TurnUsage(video))
        XCTAssertEqual(cost.unpriced, ["image/video in"])
        XCTAssertEqual(cost.short, "≈ $?")
        XCTAssertEqual(cost.long, "unknown (no price for image/video in)")
        XCTAssertTrue(prices.cost(of: TurnUsage(u)).isKnown, "a modality with no tokens needs no price")
    }

    func testThePublishedTableCarriesADateAndSourceForEveryPriceAndOverridesApply() {
        for entry in PriceTable.published.entries {
            for (kind, price) in entry.prices {
                XCTAssertFalse(price.date.isEmpty, "\(entry.model) \(kind.label)")
                XCTAssertFalse(price.source.isEmpty, "\(entry.model) \(kind.label)")
            }
        }
        let aliased = PriceTable.published.prices(model: "models/gemini-live-2.5-flash-native-audio", backend: .aiStudio)
        XCTAssertEqual(aliased[.output(.audio)]?.usdPerMillion, 12)
        XCTAssertNil(PriceTable.published.prices(model: "gemini-3.8-live", backend: .aiStudio)[.input(.audio)], "not found: unknown")
        XCTAssertTrue(PriceTable.published.prices(model: "gemini-3.8-live", backend: .vertex).prices.isEmpty)
        var table = PriceTable.published
        table.set(model: "gemini-3.8-live", backend: nil, [.input(.audio): Price(3, date: "2026-11-24", source: "config")])
        XCTAssertEqual(table.prices(model: "gemini-3.8-live", backend: .aiStudio)[.input(.audio)]?.usdPerMillion, 3)
        XCTAssertEqual(table.prices(model: "gemini-3.8-live", backend: .aiStudio)[.input(.text)]?.usdPerMillion, 0.75, "the rest stays")
        XCTAssertEqual(table.prices(model: "gemini-3.8-live", backend: .vertex)[.input(.audio)]?.usdPerMillion, 3)
        XCTAssertTrue(table.listing.contains("gemini-3.8-live · Vertex AI"))
    }

    func testDollarsAreShownTheSameWayEverywhere() {
        XCTAssertEqual(Cost.dollars(0), "$0.00")
        XCTAssertEqual(Cost.dollars(0.0042), "$0.0042")
        XCTAssertEqual(Cost.dollars(0.0712), "$0.07")
        XCTAssertEqual(Cost(usd: 0.07).short, "≈ $0.07")
        XCTAssertEqual(Backend.of(endpoint: "wss://us-central1-aiplatform.googleapis.com/ws/x"), .vertex)
        XCTAssertEqual(Backend.of(endpoint: nil), .aiStudio)
    }
}
