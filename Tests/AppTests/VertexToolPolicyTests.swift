@testable import Conversation
import Live
import XCTest

@testable import App

/// How functions run on each backend, from the setup alone.
final class VertexToolPolicyTests: XCTestCase {
    /// Vertex AI takes no function `behavior` and runs functions synchronously whatever the model: the policy
    /// says BLOCKING there (no `scheduling` in responses), NON_BLOCKING for 3.8 on the Gemini API.
    func testToolCallsOnVertexAreSynchronousWhateverTheModel() {
        let tools = [Tool(functionDeclarations: [FunctionDeclaration(name: "lookup")])]
        let cases: [(LiveBackend, LiveModel.FunctionBehavior)] = [
            (.vertex(project: "p", location: "us-central1"), .blocking), (.vertexExpress, .blocking), (.geminiAPI, .nonBlocking),
        ]
        for (backend, expected) in cases {
            var setup = Setup(model: backend.modelResource("gemini-3.8-live"), tools: tools)
            LiveModel.traits(of: setup.model).apply(ModelOptions(), to: &setup)
            setup = setup.adapted(to: backend.kind)
            let policy = ToolCallPolicy(
                model: LiveModel.traits(of: setup.model), setup: setup, registry: ToolRegistry(), configured: ["lookup": .interrupt])
            XCTAssertEqual(policy.backend, backend.kind, setup.model)
            XCTAssertEqual(policy.behavior(of: "lookup"), expected, setup.model)
            XCTAssertEqual(policy.responseScheduling(of: "lookup"), expected == .blocking ? nil : .interrupt, setup.model)
        }
    }
}
