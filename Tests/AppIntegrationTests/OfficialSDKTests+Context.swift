import Foundation
import Live
import ParleyTesting
import XCTest

@testable import App

/// The strict judge of issue 23: every `contextUpdate` frame parley sent in a conversation (instruction set,
/// removed; tools added, replaced, removed; built-in functions with their behaviours, Google Search) passes the
/// official SDK's types, and the judge itself refuses the bare tool list a summary of the message might suggest.
extension OfficialSDKTests {
    func testTheSDKsTypesAcceptEveryContextUpdateFrameParleySends() async throws {
        let python = try sdkPython()
        let h = try await RuntimeHarness { $0.tools.readFile = true }
        h.start()
        h.waitUntilLive()
        let functions = h.launch.tools.declarations
        let changes = [
            ContextChange(instruction: "Answer in one sentence."),
            ContextChange(tools: functions + [Tool(googleSearch: EmptyObject())]),
            ContextChange(tools: []),
            ContextChange(instruction: ""),
            ContextChange(instruction: #"Begin every reply with "Arr!""#, tools: functions),
        ]
        for change in changes { h.events.post(.changeContext(change)) }
        h.wait("every change on the wire") { h.wire.kinds.filter { $0 == "contextUpdate" }.count == changes.count }
        let frames = h.wire.messages.filter { $0["contextUpdate"] != nil }
        await h.stop()
        XCTAssertTrue(frames.contains { (($0["contextUpdate"] as? [String: Any])?["tools"] as? [String: Any])?["tools"] is [Any] })

        let bare = #"{"contextUpdate": {"tools": [{"functionDeclarations": [{"name": "f"}]}]}}"#
        let lines = try frames.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) } + [bare]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-judge-\(UUID().uuidString).jsonl").path
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try shell([python, Self.root + "/Tests/SDK/judge_frames.py", file], timeout: 120)
        let verdict = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        XCTAssertEqual(verdict?["accepted"] as? Int, changes.count, "stdout: \(run.out)\nstderr: \(run.err)")
        let refused = verdict?["refused"] as? [[String: Any]] ?? []
        XCTAssertEqual(refused.map { $0["line"] as? Int }, [lines.count], "only the bare list is refused: \(refused)")
    }
}
