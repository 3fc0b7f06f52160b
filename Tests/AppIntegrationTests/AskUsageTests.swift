@testable import Conversation
import Foundation
import Live
import LiveSimulator
import ParleyTesting
import TUI
import XCTest

@testable import App

/// Usage end to end against the simulator: `ask --json`, its exit line, the app's header and usage view and the
/// export agree with each other and with what the simulator reported, to the token; cost = tokens × prices; a
/// budget ends `ask` with status 3 and the answer printed whole.
final class AskUsageTests: XCTestCase {
    var home: String!
    var simulator: LiveSimulator?

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ask-usage-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home + "/config/parley", withIntermediateDirectories: true)
        // Audio prices are not in the shipped table for 3.8: the config gives them, as a user would.
        try """
            [prices."gemini-3.8-live"]
            input_audio = 3.0
            output_audio = 12.0
            date = "2026-11-24"
            source = "test"
            """.write(toFile: home + "/config/parley/config.toml", atomically: true, encoding: .utf8)
    }

    override func tearDown() async throws {
        try? await simulator?.stop()
        try? FileManager.default.removeItem(atPath: home)
    }

    func ask(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let env = isolatedEnvironment(home: home!, ["GEMINI_API_KEY": "test-key"])
        return try shell([Binaries.parley, "ask"] + args, env: env, timeout: 60)
    }

    func start(naming: UsageMetadata.Naming = .aiStudio) async throws -> String {
        var o = SimulatorOptions()
        o.turnCompleteAfterPlayback = false
        o.usageNaming = naming
        let sim = LiveSimulator(options: o)
        try await sim.start()
        simulator = sim
        return sim.url
    }

    func objects(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func testAskJSONTheExitLineTheAppAndTheExportAgreeWithTheSimulatorToTheToken() async throws {
        let url = try await start()
        let r = try ask(["--endpoint", url, "--json", "what is the capital of France"])
        XCTAssertEqual(r.status, 0, r.err)
        let reported = try XCTUnwrap(simulator?.stats().usageReported)
        XCTAssertEqual(reported.count, 1)
        let u = reported[0]
        let events = try objects(r.out)
        let usage = events.filter { $0["event"] as? String == "usage" }
        XCTAssertEqual(usage.count, 1, r.out)
        let line = usage[0]
        XCTAssertEqual(line["promptTokens"] as? Int, u.promptTokenCount)
        XCTAssertEqual(line["responseTokens"] as? Int, u.responseTokenCount)
        XCTAssertEqual(line["thoughtsTokens"] as? Int, u.thoughtsTokenCount)
        XCTAssertEqual(line["totalTokens"] as? Int, u.totalTokenCount)
        XCTAssertEqual((line["input"] as? [String: Any])?["text"] as? Int, u.promptTokensDetails?.first?.tokenCount)
        XCTAssertEqual((line["output"] as? [String: Any])?["audio"] as? Int, u.responseTokenCount)
        XCTAssertEqual(line["contextLimit"] as? Int, 131_072)

        // Cost = tokens × prices: text in at 0.75 (the details' gap is text too), audio out at 12, thoughts at 4.50.
        let prompt = Double(u.promptTokenCount ?? 0), response = Double(u.responseTokenCount ?? 0), thoughts = Double(u.thoughtsTokenCount ?? 0)
        let textIn = prompt * 0.75, audioOut = response * 12, thinking = thoughts * 4.5
        let expected = (textIn + audioOut + thinking) / 1_000_000
        let cost = try XCTUnwrap(line["costUsd"] as? Double, r.out)
        XCTAssertEqual(cost, expected, accuracy: 1e-12)

        let summary = try XCTUnwrap(events.first { $0["event"] as? String == "usageSummary" }, r.out)
        XCTAssertEqual(summary["tokens"] as? Int, u.totalTokenCount)
        XCTAssertEqual(summary["turns"] as? Int, 1)
        XCTAssertEqual(try XCTUnwrap(summary["costUsd"] as? Double), expected, accuracy: 1e-12)
        let tokens = HeaderView.grouped(u.totalTokenCount ?? 0)
        let exitLine = "1 turn · \(tokens) tokens · ≈ \(Cost.dollars(expected))"
        XCTAssertTrue(r.err.contains("parley: " + exitLine), r.err)

        // The same reports through the app: header, usage view, transcript records, export.
        var config = Config()
        config.priceOverrides = [Config.PriceOverride(
            model: LiveModel.defaultID, backend: nil, prices: [.input(.audio): 3, .output(.audio): 12], date: "2026-11-24", source: "test")]
        var s = AppState(config: config, demo: false, audioAvailable: true, kitty: false)
        var records = [TranscriptRecord.session(model: LiveModel.defaultID, voice: "Puck")]
        for e in Reducer.reduce(&s, .live(.usage(u)), now: 1) { if case .record(let rec) = e { records.append(rec) } }
        XCTAssertEqual(s.ui.header.tokens, u.totalTokenCount)
        XCTAssertEqual(s.ui.header.cost, "≈ " + Cost.dollars(expected))
        XCTAssertEqual(s.usage.table.rows.first?.input, line["billedInputTokens"] as? Int)
        XCTAssertEqual(s.usage.table.rows.first?.output, u.responseTokenCount)
        XCTAssertEqual(s.usage.summaryLine, exitLine)
        let md = TranscriptStore.markdown(records, title: "t", prices: config.priceTable)
        XCTAssertTrue(md.contains(exitLine), md)
    }

    func testABudgetEndsAskWithStatus3AndTheAnswerWhole() async throws {
        let url = try await start()
        let r = try ask(["--endpoint", url, "--budget", "0.000001", "what is the capital of France"])
        XCTAssertEqual(r.status, 3, r.err)
        XCTAssertTrue(r.err.contains("budget reached"), r.err)
        XCTAssertTrue(r.err.contains("nothing more was asked"), r.err)
        let reply = try XCTUnwrap(simulator?.stats().replies.first)
        XCTAssertTrue(r.out.contains(reply), "the answer is printed whole: \(r.out)")
        XCTAssertEqual(simulator?.stats().userTurns.count, 1)
    }

    func testVertexNamesReachTheJSON() async throws {
        let url = try await start(naming: .vertex)
        let r = try ask(["--endpoint", url, "--json", "hello"])
        XCTAssertEqual(r.status, 0, r.err)
        let u = try XCTUnwrap(simulator?.stats().usageReported.first)
        let line = try XCTUnwrap(try objects(r.out).first { $0["event"] as? String == "usage" }, r.out)
        XCTAssertEqual(line["responseTokens"] as? Int, u.responseTokenCount, "candidatesTokenCount read as the response")
        XCTAssertEqual(line["trafficType"] as? String, "ON_DEMAND")
    }

    func testModelsPricesPrintsTheTableWithSourcesAndTheConfigsOverrides() throws {
        let env = isolatedEnvironment(home: home!)
        let r = try shell([Binaries.parley, "models", "--prices"], env: env)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("gemini-3.8-live · AI Studio"), r.out)
        XCTAssertTrue(r.out.contains("audio in 3.00"), "the config's override: \(r.out)")
        XCTAssertTrue(r.out.contains("ai.google.dev/gemini-api/docs/pricing"), r.out)
        XCTAssertTrue(r.out.contains("gemini-3.1-flash-live-preview · Vertex AI"), r.out)
    }
}
