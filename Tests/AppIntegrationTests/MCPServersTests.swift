import Foundation
import Live
import Logging
import XCTest

@testable import App

/// MCP servers over stdio, against a tiny server written for the test.
final class MCPServersTests: XCTestCase {
    static let server = #"""
        import json, sys
        for line in sys.stdin:
            msg = json.loads(line)
            method, mid = msg.get("method"), msg.get("id")
            if mid is None:
                continue
            if method == "initialize":
                result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                          "serverInfo": {"name": "tiny", "version": "1"}}
            elif method == "tools/list":
                result = {"tools": [
                    {"name": "shout", "description": "Upper-cases text",
                     "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                     "properties": {"text": {"type": "string"}}, "required": ["text"],
                                     "additionalProperties": False}},
                    {"name": "broken", "description": "Always fails", "inputSchema": {"type": "object"}}]}
            elif method == "tools/call":
                name, args = msg["params"]["name"], msg["params"].get("arguments") or {}
                if name == "shout":
                    result = {"content": [{"type": "text", "text": args.get("text", "").upper()}], "isError": False}
                else:
                    result = {"content": [{"type": "text", "text": "it broke"}], "isError": True}
            else:
                print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no such method"}}), flush=True)
                continue
            print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}), flush=True)
        """#

    var script: String!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/python3")
        else { throw XCTSkip("python3 is needed for the test MCP server") }
        script = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mcp-\(UUID()).py").path
        try Self.server.write(toFile: script, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: script) }

    func testListsCallsAndReportsFailures() async throws {
        var registry = ToolRegistry.builtIn(Config.ToolSettings())
        let (servers, problems) = await MCPServers.start(
            [MCPServerConfig(name: "tiny", command: "python3", args: [script], confirm: false),
             MCPServerConfig(name: "ghost", command: "/nonexistent/mcp-server")],
            into: &registry, timeout: 20, logger: Logger(label: "test"))
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("ghost") == true && problems.first?.contains("skipped") == true, "\(problems)")

        let declared = registry.declarations.first?.functionDeclarations ?? []
        XCTAssertEqual(declared.map(\.name), ["broken", "get_current_time", "shout"])
        let schema = declared.first { $0.name == "shout" }?.parameters
        XCTAssertEqual(schema, ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]],
                       "only the schema keys Gemini accepts")
        XCTAssertEqual(registry.server(of: "shout"), "tiny")
        XCTAssertNil(registry.confirmation(for: FunctionCall(id: "1", name: "shout")), "confirm = never")

        let answers = await registry.answer([
            FunctionCall(id: "a", name: "shout", args: ["text": "hello"]),
            FunctionCall(id: "b", name: "broken"),
        ])
        XCTAssertEqual(answers.map(\.id), ["a", "b"])
        XCTAssertEqual(answers[0].response["result"], "HELLO")
        XCTAssertEqual(answers[1].response["error"], "it broke")
        await servers.stop()
    }

    func testConfirmationIsTheDefaultPolicy() async throws {
        var registry = ToolRegistry()
        let (servers, problems) = await MCPServers.start(
            [MCPServerConfig(name: "tiny", command: "python3", args: [script])], into: &registry, timeout: 20, logger: Logger(label: "test"))
        XCTAssertEqual(problems, [])
        let text = registry.confirmation(for: FunctionCall(id: "1", name: "shout", args: ["text": "x"]))
        XCTAssertEqual(text, #"tiny → shout({"text":"x"})"#)
        await servers.stop()
    }

    func testConfigReadsMCPServers() throws {
        var c = Config()
        try c.apply(toml: """
            [[mcp]]
            name = "files"
            command = "mcp-files"
            args = ["--root", "/srv"]
            confirm = "never"

            [[mcp]]
            command = "other"
            """, file: "c.toml")
        XCTAssertEqual(c.mcp, [MCPServerConfig(name: "files", command: "mcp-files", args: ["--root", "/srv"], confirm: false),
                               MCPServerConfig(name: "other", command: "other")])
        XCTAssertTrue(c.printed.contains("[[mcp]]"))
        XCTAssertThrowsError(try c.apply(toml: "[[mcp]]\nname = \"x\"\n", file: "c.toml")) { e in
            XCTAssertTrue("\(e)".contains("needs command"), "\(e)")
        }
    }
}
