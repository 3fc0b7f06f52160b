import Live
import XCTest

@testable import Conversation

/// Which tools are on: a persona's word first (for the tool or its MCP server), then the config's own settings
/// for parley's tools; an MCP server's tools are on unless something says otherwise.
final class ContextStateTests: XCTestCase {
    let base = BaseSettings(systemInstruction: "Be brief.", voice: "Puck", thinking: nil, builtInToolsOn: ["get_current_time"])
    let reader = Persona(name: "Reader", system: "Read aloud.", thinking: "high",
                         tools: ["read_file": true, "get_current_time": false, "wx": false])

    func testAPersonaOverridesTheConfigForAToolOrItsServer() {
        XCTAssertTrue(base.toolOn("get_current_time", server: nil, under: nil))
        XCTAssertFalse(base.toolOn("read_file", server: nil, under: nil), "off unless [tools] turns it on")
        XCTAssertTrue(base.toolOn("forecast", server: "wx", under: nil), "an MCP server's tools are on by default")
        XCTAssertFalse(base.toolOn("mystery", server: nil, under: nil), "a name that is neither parley's nor a server's")
        XCTAssertFalse(base.toolOn("get_current_time", server: nil, under: reader))
        XCTAssertTrue(base.toolOn("read_file", server: nil, under: reader))
        XCTAssertFalse(base.toolOn("forecast", server: "wx", under: reader), "the persona turned the whole server off")
        XCTAssertFalse(base.toolOn("google_search", server: nil, under: reader), "google_search follows [tools] too")
    }

    func testTheStartingPersonaSetsTheToolsAndTheRestComesFromTheConfig() {
        let declarations = ["read_file": FunctionDeclaration(name: "read_file"), "forecast": FunctionDeclaration(name: "forecast")]
        let c = ContextState(base: base, personas: [reader], starting: reader, ownTools: ["get_current_time", "read_file"],
                             mcpTools: [(name: "forecast", server: "wx")], declarations: declarations)
        XCTAssertEqual(c.persona, "Reader")
        XCTAssertEqual(c.instruction, "Be brief.", "the config's instruction, as the launch has already adopted the persona's")
        XCTAssertEqual(c.tools.map(\.name), ["get_current_time", "read_file", "forecast"], "parley's own first, then each server's")
        XCTAssertEqual(c.toolsOn, ["read_file"])
        XCTAssertEqual(c.toolsOn(under: nil), ["get_current_time", "forecast"], "back to the config's own settings")
        XCTAssertEqual(c.setupTools(c.toolsOn).flatMap { $0.functionDeclarations ?? [] }.map(\.name), ["read_file"])
    }
}
