@testable import Conversation
import Foundation
import Live
import ParleyLock
import ParleyTesting
import XCTest

@testable import App

final class ToolRunnerTests: XCTestCase {
    /// A tool that waits until released, so a test can cancel it mid-run.
    func slowTool(_ name: String, gate: AsyncStream<Void>) -> ToolDefinition {
        ToolDefinition(name: name, description: name, parameters: ["type": "object"]) { _ in
            for await _ in gate { break }
            return ["done": true]
        }
    }

    func testACancelledCallIsNotAnsweredButTheOthersOfItsMessageAre() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        var registry = ToolRegistry()
        registry.register(slowTool("slow", gate: gate))
        registry.register(.currentTime)
        let runner = ToolRunner(registry: registry)
        let sent = Locked<[[FunctionResponse]]>([])
        let done = expectation(description: "responded")
        runner.run(
            [FunctionCall(id: "a", name: "get_current_time"), FunctionCall(id: "b", name: "slow"), FunctionCall(id: "c", name: "nope")],
            confirm: { _, _ in true },
            finished: { _, _ in },
            respond: { r in
                sent.withLock { $0.append(r) }
                done.fulfill()
            })
        runner.cancel(["b"])
        open.yield()
        open.finish()
        await fulfillment(of: [done], timeout: 10)
        let responses = sent.withLock { $0 }
        XCTAssertEqual(responses.count, 1, "answered together, once")
        XCTAssertEqual(responses.first?.map(\.id), ["a", "c"], "every call but the cancelled one, by id")
        XCTAssertNotNil(responses.first?.last?.response["error"], "an unknown tool gets a structured error")
    }

    func testADeniedCommandNeverRunsAndTheModelIsTold() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("parley-denied-\(UUID())").path
        var registry = ToolRegistry()
        registry.register(.shell(ShellTool()))
        let runner = ToolRunner(registry: registry)
        let asked = Locked<[String]>([])
        let outcomes = Locked<[ToolOutcome]>([])
        let done = expectation(description: "responded")
        runner.run(
            [FunctionCall(id: "x", name: "run_shell_command", args: ["command": .string("touch \(marker)")])],
            confirm: { _, text in
                asked.withLock { $0.append(text) }
                return false
            },
            finished: { _, o in outcomes.withLock { $0.append(o) } },
            respond: { r in
                XCTAssertEqual(r.map(\.id), ["x"])
                XCTAssertNotNil(r.first?.response["error"])
                done.fulfill()
            })
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(asked.withLock { $0 }, ["touch \(marker)"], "the user saw the exact command")
        XCTAssertEqual(outcomes.withLock { $0 }, [.denied])
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "it never ran")
    }
}
