import Foundation
import Live
import Logging
import XCTest

@testable import App

/// The JSON-RPC client against a Python server that pages its tools, fails, asks parley things mid-call, answers
/// out of order, sends content kinds parley does not know, and dies.
final class MCPClientTests: XCTestCase {
    static let server = #"""
        import json, sys, threading, time
        out = threading.Lock()
        def send(msg):
            with out:
                sys.stdout.write(json.dumps(msg) + "\n")
                sys.stdout.flush()
        def answer(mid, result):
            send({"jsonrpc": "2.0", "id": mid, "result": result})
        def text(t):
            return {"content": [{"type": "text", "text": t}]}
        seen = []
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            msg = json.loads(line)
            method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
            if mid is None:
                seen.append(method)
                continue
            if method == "initialize":
                answer(mid, {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                             "serverInfo": {"name": "paged", "version": "2"}, "clientInfo": params["clientInfo"]})
            elif method == "tools/list":
                cursor = params.get("cursor")
                if cursor is None:
                    answer(mid, {"tools": [{"name": "one", "inputSchema": {"type": "object"}}], "nextCursor": "page-2"})
                elif cursor == "page-2":
                    answer(mid, {"tools": [{"name": "two", "description": "Second", "inputSchema": {"type": "object"}}],
                                 "nextCursor": "page-3"})
                else:
                    answer(mid, {"tools": [{"name": "three", "title": "Third"}]})
            elif method == "tools/call":
                name, args = params["name"], params.get("arguments") or {}
                if name == "seen":
                    answer(mid, text(",".join(seen)))
                elif name == "fail":
                    send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32000, "message": "the database is offline"}})
                elif name == "ask_back":
                    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
                    send({"jsonrpc": "2.0", "id": "s-1", "method": "ping"})
                    pong = json.loads(sys.stdin.readline())
                    send({"jsonrpc": "2.0", "id": 77, "method": "sampling/createMessage", "params": {}})
                    refused = json.loads(sys.stdin.readline())
                    answer(mid, text(json.dumps([pong, refused], sort_keys=True)))
                elif name == "odd":
                    answer(mid, {"content": [
                        {"type": "text", "text": "a"},
                        {"type": "hologram", "data": "zzz"},
                        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                        {"type": "resource", "resource": {"uri": "file:///notes.txt", "text": "hi"}},
                        {"type": "resource_link", "uri": "file:///big.bin", "name": "big"},
                        {"type": "text"},
                        {"nothing": True}], "isError": False})
                elif name == "slow":
                    def later(mid=mid, args=args):
                        time.sleep(args["delay"])
                        answer(mid, text(args["tag"]))
                    threading.Thread(target=later).start()
                elif name == "die":
                    import os
                    os._exit(3)
                else:
                    send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "unknown tool " + name}})
            else:
                send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no such method"}})
        """#

    var script: String!
    var process: ChildProcess?
    let logger = Logger(label: "test")

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 is needed for the test MCP server") }
        script = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mcp-client-\(UUID()).py").path
        try Self.server.write(toFile: script, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        process?.terminate()
        try? FileManager.default.removeItem(atPath: script)
    }

    /// A connected client of a fresh server.
    func connected() async throws -> MCPClient {
        let process = try ChildProcess(command: "python3", args: [script], environment: ToolEnvironment.clean(passing: []))
        self.process = process
        signal(SIGPIPE, SIG_IGN)
        let client = MCPClient(
            transport: LineTransport(input: process.fromChild, output: process.toChild, logger: logger), logger: logger,
            failure: { process.exitStatus.map { Exited(status: $0) } })
        let info = try await client.connect(clientVersion: "9.9", timeout: 20)
        XCTAssertEqual(info.serverInfo, MCP.Implementation(name: "paged", version: "2"))
        XCTAssertEqual(info.protocolVersion, MCP.protocolVersion)
        return client
    }


    func testInitializeThenInitializedThenToolsOverThreePages() async throws {
        let client = try await connected()
        let tools = try await client.listAllTools(timeout: 20)
        XCTAssertEqual(tools.map(\.name), ["one", "two", "three"])
        XCTAssertEqual(tools[1].description, "Second")
        XCTAssertEqual(tools[2].inputSchema, [:], "a tool without a schema still lists")
        XCTAssertEqual(MCPServers.geminiSchema(tools[2].inputSchema), ["type": "object"])
        let seen = try await call(client, "seen")
        XCTAssertEqual(seen.content, [.text("notifications/initialized")])
        client.disconnect()
    }

    func testAJSONRPCErrorIsTypedWithTheServersMessage() async throws {
        let client = try await connected()
        do {
            _ = try await call(client, "fail")
            XCTFail("an error response must throw")
        } catch let error as MCPClientError {
            XCTAssertEqual(error, .server(method: "tools/call", code: -32000, message: "the database is offline"))
            XCTAssertTrue("\(error)".contains("the database is offline"), "\(error)")
        }
        // The client still works after an error.
        let after = try await call(client, "seen")
        XCTAssertFalse(after.isError)
        client.disconnect()
    }

    func testTheServersPingDuringACallIsAnsweredAndOtherRequestsRefused() async throws {
        let client = try await connected()
        let result = try await call(client, "ask_back")
        guard case .text(let text)? = result.content.first,
              let replies = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return XCTFail("\(result)") }
        XCTAssertEqual(replies, [
            ["jsonrpc": "2.0", "id": "s-1", "result": [:]],
            ["jsonrpc": "2.0", "id": 77, "error": ["code": -32601, "message": "parley does not offer sampling/createMessage"]],
        ])
        client.disconnect()
    }

    func testUnknownAndIncompleteContentKindsArePlaceholders() async throws {
        let client = try await connected()
        let result = try await call(client, "odd")
        XCTAssertEqual(result.content, [
            .text("a"), .other(type: "hologram"), .image(mimeType: "image/png"), .audio(mimeType: "audio/wav"),
            .resource(uri: "file:///notes.txt", text: "hi"), .resourceLink(uri: "file:///big.bin", name: "big"),
            .other(type: "text"), .other(type: ""),
        ])
        let (text, cut) = MCPServers.resultText(result.content, limit: 1000)
        XCTAssertNil(cut)
        XCTAssertEqual(text, """
            a
            [hologram content]
            [image/png image]
            [audio/wav audio]
            [resource file:///notes.txt]
            [link file:///big.bin]
            [text content]
            [content without a type]
            """)
        client.disconnect()
    }

    func testTwoConcurrentCallsGetTheirOwnAnswersOutOfOrder() async throws {
        let client = try await connected()
        async let slow = call(client, "slow", ["tag": "first asked", "delay": 0.6])
        async let fast = call(client, "slow", ["tag": "second asked", "delay": 0])
        let (a, b) = try await (slow, fast)
        XCTAssertEqual(a.content, [.text("first asked")])
        XCTAssertEqual(b.content, [.text("second asked")])
        client.disconnect()
    }

    func testAServerExitingMidCallFailsEveryCallInFlight() async throws {
        let client = try await connected()
        let waiting = Task { try await call(client, "slow", ["tag": "never", "delay": 30], timeout: 600) }
        let dying = Task { try await call(client, "die", timeout: 600) }
        for outcome in [await waiting.result, await dying.result] {
            guard case .failure(let error) = outcome else { return XCTFail("a call to a dead server must fail: \(outcome)") }
            let explained = await Exited.explained(error, process: self.process)
            XCTAssertTrue("\(explained)".contains("exited with status 3"), "\(explained)")
        }
        // Later calls fail at once, not at their time limit.
        let started = ContinuousClock.now
        let later = await Task { try await call(client, "seen", timeout: 600) }.result
        guard case .failure = later else { return XCTFail("\(later)") }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testRepliesThatAreNotMessagesAreSkipped() throws {
        XCTAssertEqual(try MCP.Incoming(line: Data(#"{"jsonrpc":"2.0","id":3,"result":{}}"#.utf8)), .response(.number(3), error: nil))
        XCTAssertEqual(try MCP.Incoming(line: Data(#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#.utf8)), .request(.string("a"), method: "ping"))
        XCTAssertEqual(try MCP.Incoming(line: Data(#"{"method":"notifications/progress"}"#.utf8)), .notification(method: "notifications/progress"))
        XCTAssertEqual(try MCP.Incoming(line: Data(#"{"id":4,"error":{}}"#.utf8)),
                       .response(.number(4), error: MCP.ErrorObject(code: 0, message: "(no message)")))
        guard case .unroutable = try MCP.Incoming(line: Data(#" [{"id":1,"result":{}}]"#.utf8)) else { return XCTFail("a batch") }
        guard case .unroutable = try MCP.Incoming(line: Data(#"{"id":null,"error":{"code":-32700,"message":"parse"}}"#.utf8)) else {
            return XCTFail("an error without an id")
        }
        XCTAssertThrowsError(try MCP.Incoming(line: Data("not json".utf8)))
        XCTAssertThrowsError(try MCP.result(Data(#"{"id":1,"result":{"tools":7}}"#.utf8), as: MCP.ToolsPage.self))
    }
}

private func call(_ client: MCPClient, _ name: String, _ args: [String: JSONValue] = [:], timeout: Double = 20) async throws -> MCP.CallResult {
    try await client.callTool(name: name, arguments: args, timeout: timeout)
}
