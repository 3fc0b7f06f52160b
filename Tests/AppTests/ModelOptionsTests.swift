@testable import Conversation
import Foundation
import Live
import ParleyLock
import TUI
import XCTest

@testable import App

/// Options checked against the model table before connecting, and the config keys that set them.
final class ModelOptionsTests: XCTestCase {
    func configFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-models-\(UUID()).toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAnOptionTheModelDoesNotTakeIsRefusedBeforeConnecting() throws {
        let empty = try configFile("")
        let flags = try CommonOptions.parse(["--config", empty, "--thinking", "high"])
        XCTAssertThrowsError(try flags.resolve()) { e in
            guard let error = e as? ParleyError else { return XCTFail("\(e)") }
            XCTAssertEqual(error.exitCode, 64, "a bad command line")
            XCTAssertTrue("\(error)".hasPrefix("--thinking is not accepted by gemini-3.8-live"), "\(error)")
        }
        let fine = try CommonOptions.parse(["--config", empty, "--model", "gemini-3.8-live-extended-thinking", "--thinking", "high", "--language", "de-DE"])
        let c = try fine.resolve()
        let setup = c.setup(tools: [], manualActivity: true)
        XCTAssertEqual(setup.generationConfig?.thinkingConfig?.thinkingLevel, "high")
        XCTAssertEqual(setup.generationConfig?.speechConfig?.languageCode, "de-DE")

        let file = try configFile("proactive_audio = false\n")
        XCTAssertThrowsError(try CommonOptions.parse(["--config", file]).resolve()) { e in
            guard let error = e as? ParleyError else { return XCTFail("\(e)") }
            XCTAssertEqual(error.exitCode, 78, "a bad config file")
            XCTAssertTrue("\(error)".contains("proactive_audio = false: not accepted by gemini-3.8-live"), "\(error)")
        }
        XCTAssertThrowsError(try CommonOptions.parse(["--config", empty, "--model", "gemini-2.0-flash-live-001"]).resolve()) { e in
            XCTAssertTrue("\(e)".contains("shut down"), "\(e)")
        }
    }

    func testConfigKeysForTheModelAndTheTools() throws {
        var c = Config()
        try c.apply(toml: """
            model = "gemini-2.5-flash-native-audio-preview-12-2025"
            language = "en-GB"
            affective_dialog = true
            proactive_audio = true
            thinking_budget = 1024

            [tools.behavior]
            get_current_time = "non_blocking"

            [tools.scheduling]
            get_current_time = "interrupt"
            """, file: "/tmp/c.toml")
        XCTAssertEqual(c.modelOptions, ModelOptions(
            thinkingBudget: 1024, languageCode: "en-GB", affectiveDialog: true, proactiveAudio: true,
            functionBehaviors: ["get_current_time": .nonBlocking]))
        XCTAssertEqual(c.tools.scheduling, ["get_current_time": .interrupt])
        XCTAssertTrue(c.printed.contains("[tools.scheduling]\nget_current_time = \"interrupt\""), c.printed)
        let setup = c.setup(tools: ToolRegistry.builtIn(c.tools).declarations, manualActivity: true)
        XCTAssertEqual(setup.generationConfig?.enableAffectiveDialog, true)
        XCTAssertEqual(setup.proactivity?.proactiveAudio, true)
        XCTAssertEqual(setup.tools?.first?.functionDeclarations?.first?.behavior, "NON_BLOCKING")
        XCTAssertThrowsError(try c.apply(toml: "[tools.scheduling]\nx = \"later\"\n", file: "/tmp/c.toml")) { e in
            XCTAssertTrue("\(e)".hasPrefix("/tmp/c.toml:2: tools.scheduling.x:"), "\(e)")
        }
    }

    func testTheDefaultModelIs38() {
        XCTAssertEqual(Config().model, "gemini-3.8-live")
    }
}

/// NON_BLOCKING calls: answered each on its own with their scheduling; partial results go out with willContinue.
final class AsyncToolTests: XCTestCase {
    func testNonBlockingCallsCarrySchedulingAndPartialResults() async throws {
        var registry = ToolRegistry()
        var slow = ToolDefinition(name: "count", description: "counts", parameters: ["type": "object"]) { _ in ["n": 0] }
        slow.runReporting = { _, partial in
            partial(["n": 1])
            partial(["n": 2])
            return ["n": 3]
        }
        registry.register(slow)
        registry.register(.currentTime)
        var setup = Setup(model: "models/gemini-3.8-live", tools: registry.declarations)
        LiveModel.traits(of: setup.model).apply(ModelOptions(functionBehaviors: ["get_current_time": .blocking]), to: &setup)
        let policy = ToolCallPolicy(
            model: LiveModel.traits(of: setup.model), setup: setup, registry: registry, configured: ["count": .silent])
        XCTAssertEqual(policy.behavior(of: "count"), .nonBlocking, "3.8's default")
        XCTAssertEqual(policy.responseScheduling(of: "get_current_time"), nil, "BLOCKING calls carry none")

        let runner = ToolRunner(registry: registry, policy: policy)
        let sent = Locked<[[FunctionResponse]]>([])
        let partials = Locked<[FunctionResponse]>([])
        let done = expectation(description: "both answered")
        done.expectedFulfillmentCount = 2
        runner.run(
            [FunctionCall(id: "a", name: "count"), FunctionCall(id: "b", name: "get_current_time")],
            confirm: { _, _ in true }, finished: { _, _ in },
            partial: { p in partials.withLock { $0.append(p) } },
            respond: { r in
                sent.withLock { $0.append(r) }
                if r.contains(where: { $0.willContinue != true }) { done.fulfill() }
            })
        await fulfillment(of: [done], timeout: 10)
        let all = sent.withLock { $0 }.flatMap { $0 }
        XCTAssertEqual(all.filter { $0.id == "a" && $0.willContinue == true }.map(\.response), [["n": 1], ["n": 2]])
        XCTAssertEqual(all.last { $0.id == "a" }?.response, ["n": 3])
        XCTAssertTrue(all.filter { $0.id == "a" }.allSatisfy { $0.scheduling == .silent })
        XCTAssertEqual(all.first { $0.id == "b" }?.scheduling, nil)
        XCTAssertEqual(partials.withLock { $0.count }, 2)
    }
}

/// What the service sends, shown where it belongs in the TUI state.
final class ServiceContentReducerTests: XCTestCase {
    var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)

    func on(_ e: LiveEvent, at now: Double = 1) { _ = Reducer.reduce(&s, .live(e), now: now) }

    func testThoughtsAreFoldedDimLinesAndAKeyShowsThem() {
        on(.setupComplete(resumed: false))
        on(.thought("**Greeting**\n\nThe user says hello."))
        on(.outputTranscription(" Hi", finished: false))
        on(.outputTranscription(" there", finished: false))
        on(.turnComplete(reason: nil))
        let thought = s.ui.transcript.entries.first { $0.speaker == .thought }
        XCTAssertEqual(thought?.folded, true)
        XCTAssertEqual(s.ui.transcript.entries.last { $0.speaker == .model }?.text, "Hi there", "fragments joined cleanly")
        _ = Reducer.reduce(&s, .input(.key(KeyEvent(.character("T")))), now: 2)
        XCTAssertEqual(s.ui.transcript.entries.first { $0.speaker == .thought }?.folded, false)
    }

    func testTheInterimTranscriptIsReplacedByTheFinalOne() {
        on(.setupComplete(resumed: false))
        on(.interimInputTranscription(" wear"))
        on(.interimInputTranscription(" are"))
        let id = s.userEntry
        XCTAssertEqual(s.ui.transcript.entries.last?.partial, "wear are")
        on(.inputTranscription(" Where", finished: false))
        on(.inputTranscription(" <noise> are you?", finished: true))
        XCTAssertEqual(s.ui.transcript.entries[id ?? 0].text, "Where are you?")
        XCTAssertEqual(s.ui.transcript.entries[id ?? 0].partial, "")
    }

    func testTheToolLogShowsBehaviourSchedulingPartialsAndCode() {
        var setup = Setup(model: "models/gemini-3.8-live", tools: [Tool(functionDeclarations: [FunctionDeclaration(name: "lookup")])])
        LiveModel.traits(of: setup.model).apply(ModelOptions(), to: &setup)
        s.toolPolicy = ToolCallPolicy(model: LiveModel.traits(of: setup.model), setup: setup, registry: ToolRegistry(), configured: ["lookup": .interrupt])
        on(.toolCall([FunctionCall(id: "function-call-1", name: "lookup")]))
        XCTAssertFalse(s.modelResponding, "a NON_BLOCKING call does not hold the turn")
        _ = Reducer.reduce(&s, .toolPartial(id: "function-call-1", result: #"{"n":1}"#), now: 2)
        let entry = s.ui.toolLog.calls.first
        XCTAssertEqual(entry?.behavior, "NON_BLOCKING")
        XCTAssertEqual(entry?.scheduling, "INTERRUPT")
        XCTAssertEqual(entry?.partials, [#"{"n":1}"#])
        let row = ToolLogView.render(s.ui.toolLog, size: Size(rows: 3, columns: 80)).map(\.text).joined(separator: "\n")
        XCTAssertTrue(row.contains("async·interrupt +1 running"), row)

        on(.modelActivity(.code(language: "PYTHON", code: "print(2+2)")))
        on(.modelActivity(.codeResult(outcome: "OUTCOME_OK", output: "4")))
        on(.modelActivity(.grounding(queries: ["weather paris"], sources: ["Météo — https://example.org"])))
        XCTAssertEqual(s.ui.toolLog.calls.map(\.name), ["lookup", "code (python)", "google_search"])
        XCTAssertEqual(s.ui.toolLog.calls[1].result, "4")
        XCTAssertEqual(s.ui.toolLog.calls[1].state, .ok)
        XCTAssertEqual(s.ui.toolLog.calls[2].arguments, "weather paris")
    }

    func testInteractionStatusShowsInTheHeaderUntilTheTurnEnds() {
        on(.interactionStatus("THINKING"))
        XCTAssertEqual(s.ui.header.interactionStatus, "THINKING")
        XCTAssertTrue(HeaderView.render(s.ui.header, width: 100)[1].text.contains("model THINKING"))
        on(.turnComplete(reason: "NEED_MORE_INPUT"))
        XCTAssertNil(s.ui.header.interactionStatus)
        XCTAssertTrue(s.ui.transcript.entries.contains { $0.text.contains("NEED_MORE_INPUT") })
    }
}
