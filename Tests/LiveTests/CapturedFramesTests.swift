import Foundation
import Live
import ParleyLock
import XCTest

/// Frames shaped like the captures people published from the real service (pretty-printed, snake_case and
/// camelCase mixed, thoughts as text parts, code parts, grounding, `waitingForInput`, the handle after the
/// turn), fed to a session through a scripted transport.
final class CapturedFramesTests: XCTestCase {
    /// Answers `setup` with `setupComplete` and the first user turn with `turn`, delivering on its own queue
    /// like a real transport (never inside the session's call).
    final class ScriptedTransport: LiveTransport, @unchecked Sendable {
        let turn: [String]
        let sent = Locked<[String]>([])
        init(turn: [String]) { self.turn = turn }

        final class Connection: LiveConnection, @unchecked Sendable {
            let owner: ScriptedTransport
            let deliver: @Sendable (TransportEvent) -> Void
            init(owner: ScriptedTransport, queue: DispatchQueue, onEvent: @escaping @Sendable (TransportEvent) -> Void) {
                self.owner = owner
                deliver = { e in queue.async { onEvent(e) } }
            }
            func onEvent(_ e: TransportEvent) { deliver(e) }
            func send(_ text: String) {
                let count = owner.sent.withLock { s -> Int in
                    s.append(text)
                    return s.count
                }
                if count == 1 { onEvent(.frame(Data("{\n  \"setupComplete\": {}\n}\n".utf8))) }
                if count == 2 { for f in owner.turn { onEvent(.frame(Data(f.utf8))) } }
            }
            func close(code: Int, reason: String) { onEvent(.closed(CloseReason(code: code, reason: reason))) }
        }

        func open(url: String, headers: [(name: String, value: String)], onEvent: @escaping @Sendable (TransportEvent) -> Void) -> any LiveConnection {
            let c = Connection(owner: self, queue: DispatchQueue(label: "scripted-transport"), onEvent: onEvent)
            c.onEvent(.opened)
            return c
        }
    }

    func events(model: String, turn: [String], send: (LiveSession) -> Void) async -> ([LiveEvent], [String]) {
        let transport = ScriptedTransport(turn: turn)
        var policy = ConnectionMachine.Policy()
        policy.reconnects = false
        let session = LiveSession(
            configuration: LiveConfiguration(
                endpoint: "ws://127.0.0.1:1", credential: .none,
                setup: Setup(model: LiveModel.resourceName(model), generationConfig: GenerationConfig()), policy: policy),
            transport: transport)
        session.start()
        var out: [LiveEvent] = []
        for await e in session.events {
            out.append(e)
            if case .setupComplete = e { send(session) }
            if case .resumptionUpdate(true) = e { session.close() }
        }
        return (out, transport.sent.withLock { $0 })
    }

    func testA38TurnAsCaptured() async throws {
        let turn = [
            "{\n  \"sessionResumptionUpdate\": {}\n}\n",
            "{\n  \"serverContent\": {\n    \"modelTurn\": {\n      \"parts\": [\n        {\n          \"text\": \"**Checking the weather**\\n\\nI will search for it.\"\n        }\n      ]\n    }\n  }\n}\n",
            #"{"server_content": {"model_turn": {"parts": [{"executable_code": {"language": "PYTHON", "code": "print(search('weather'))"}}]}}}"#,
            #"{"serverContent": {"modelTurn": {"parts": [{"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "sunny"}}]}}}"#,
            #"{"serverContent": {"outputTranscription": {"text": " It's"}}}"#,
            #"{"serverContent": {"outputTranscription": {"text": " <noise>"}, "groundingMetadata": {"webSearchQueries": ["weather today"], "groundingChunks": [{"web": {"uri": "https://example.org/w", "title": "Weather"}}]}}}"#,
            #"{"serverContent": {"outputTranscription": {"text": " sun"}}}"#,
            #"{"serverContent": {"outputTranscription": {"text": "ny ."}, "interactionStatus": "THINKING"}}"#,
            #"{"serverContent": {"generationComplete": true}}"#,
            #"{"serverContent": {"waitingForInput": true}}"#,
            #"{"serverContent": {"turnComplete": true, "turnCompleteReason": "NEED_MORE_INPUT"}, "usageMetadata": {"promptTokenCount": 10}}"#,
            #"{"sessionResumptionUpdate": {"newHandle": "CgxhYmM", "resumable": true}}"#,
        ]
        let (events, _) = await events(model: "gemini-3.8-live", turn: turn) { $0.sendText("weather?") }
        XCTAssertEqual(events.compactMap { if case .thought(let t) = $0 { t } else { nil } }, ["**Checking the weather**\n\nI will search for it."])
        XCTAssertFalse(events.contains { if case .modelText = $0 { true } else { false } })
        let activities = events.compactMap { if case .modelActivity(let a) = $0 { a } else { nil } }
        XCTAssertEqual(activities, [
            .code(language: "PYTHON", code: "print(search('weather'))"), .codeResult(outcome: "OUTCOME_OK", output: "sunny"),
            .grounding(queries: ["weather today"], sources: ["Weather — https://example.org/w"]),
        ])
        var spoken = TranscriptText()
        for case .outputTranscription(let t, _) in events { spoken.append(t) }
        XCTAssertEqual(spoken.text, "It's sunny.")
        XCTAssertTrue(events.contains(.interactionStatus("THINKING")))
        let ends = events.compactMap { if case .turnComplete(let r) = $0 { r ?? "nil" } else { nil } }
        XCTAssertEqual(ends, ["nil"], "waitingForInput ends the turn once; the later turnComplete is not a second end")
        XCTAssertTrue(events.contains(.resumptionUpdate(resumable: true)), "the handle after turnComplete is kept")
    }

    func testOn31TypedTextIsRealtimeInput() async throws {
        let turn = [#"{"serverContent": {"generationComplete": true}}"#, #"{"sessionResumptionUpdate": {"newHandle": "Cig", "resumable": true}}"#]
        let (events, sent) = await events(model: "gemini-3.1-flash-live-preview", turn: turn) { $0.sendText("hi") }
        XCTAssertEqual(sent.count, 2)
        XCTAssertTrue(sent.last?.contains(#""realtimeInput":{"text":"hi"}"#) == true, sent.last ?? "")
        XCTAssertEqual(events.filter { if case .turnComplete = $0 { true } else { false } }.count, 1, "generationComplete ends a 3.1 turn")
    }
}
