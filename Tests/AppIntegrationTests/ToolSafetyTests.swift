import Foundation
import Live
import Logging
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11: tools get a clean environment (item 5), never block forever (item 7), leave no survivors
/// (items 8 and 10), and MCP results are linear-time and capped (item 2).
final class ToolSafetyTests: XCTestCase {
    static let server = #"""
        import json, os, sys, time
        if os.environ.get("PARLEY_TEST_START_MARK"):
            open(os.environ["PARLEY_TEST_START_MARK"] + "." + sys.argv[1], "w").write(str(time.time()))
            time.sleep(300)
        for line in sys.stdin:
            msg = json.loads(line)
            method, mid = msg.get("method"), msg.get("id")
            if mid is None:
                continue
            if method == "initialize":
                result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                          "serverInfo": {"name": "rough", "version": "1"}}
            elif method == "tools/list":
                result = {"tools": [{"name": n, "description": n, "inputSchema": {"type": "object"}}
                                    for n in ["big", "hang", "die", "env", "status"]]}
            elif method == "tools/call":
                name = msg["params"]["name"]
                if name == "hang":
                    time.sleep(300)
                if name == "die":
                    os._exit(3)
                if name == "big":
                    text = "x" * (4 << 20)
                elif name == "env":
                    text = "\n".join(sorted(os.environ.keys()))
                else:
                    text = open("/proc/self/status").read()
                result = {"content": [{"type": "text", "text": text}], "isError": False}
            else:
                print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}}), flush=True)
                continue
            print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}), flush=True)
        """#

    var script: String!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 is needed") }
        script = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rough-\(UUID()).py").path
        try Self.server.write(toFile: script, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: script) }

    func startRough(callTimeout: Double = 20) async -> (MCPServers, ToolRegistry) {
        var registry = ToolRegistry()
        var config = MCPServerConfig(name: "rough", command: "python3", args: [script], confirm: false)
        config.callTimeout = callTimeout
        let (servers, problems) = await MCPServers.start([config], into: &registry, timeout: 20, logger: Logger(label: "test"))
        XCTAssertEqual(problems, [])
        return (servers, registry)
    }

    /// Item 2: a 4 MB result arrives in linear time and reaches the model cut to 1 MiB, with a note.
    func testALargeMCPResultIsCappedWithANote() async throws {
        let (servers, registry) = await startRough()
        let started = ContinuousClock.now
        let answer = await registry.answer([FunctionCall(id: "1", name: "big")]).first
        let took = ContinuousClock.now - started
        if ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" { print("BENCH mcp 4 MB result: \(took)") }
        XCTAssertEqual(answer?.response["result"]?.stringValue?.utf8.count, MCPServers.maxResultBytes)
        XCTAssertEqual(answer?.response["truncated"], true)
        XCTAssertTrue(answer?.response["note"]?.stringValue?.contains("4194304 bytes") == true, "\(String(describing: answer?.response["note"]))")
        await servers.stop()
    }

    /// Item 7: a call that never ends is answered with an error at the call time limit.
    func testAHangingMCPCallIsAnsweredAtItsTimeLimit() async throws {
        let (servers, registry) = await startRough(callTimeout: 1)
        let answer = await registry.answer([FunctionCall(id: "1", name: "hang")]).first
        XCTAssertTrue(answer?.response["error"]?.stringValue?.contains("no answer") == true, "\(String(describing: answer))")
        await servers.stop()
    }

    /// Item 2: cancelling (quitting) ends a call to a stuck server at once, not at its time limit.
    func testCancellingACallToAStuckServerAnswersAtOnce() async throws {
        let (servers, registry) = await startRough(callTimeout: 600)
        let call = Task { await registry.answer([FunctionCall(id: "1", name: "hang")]).first }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        let answer = await call.value
        XCTAssertTrue(answer?.response["error"]?.stringValue?.contains("Cancellation") == true, "\(String(describing: answer))")
        await servers.stop()
    }

    /// Item 7: a server that dies mid-call answers the call with an error (long before the time limit).
    func testAServerDyingMidCallAnswersWithAnError() async throws {
        let (servers, registry) = await startRough(callTimeout: 600)
        let answer = await registry.answer([FunctionCall(id: "1", name: "die")]).first
        XCTAssertTrue(answer?.response["error"]?.stringValue?.contains("exited") == true, "\(String(describing: answer))")
        await servers.stop()
    }

    /// Items 5 and 8: an MCP server sees no secrets, starts with no signal blocked, and is gone after stop.
    func testMCPServersStartCleanAndDieOnStop() async throws {
        setenv("GEMINI_API_KEY", "test-secret-value", 1)
        setenv("SOME_SERVICE_TOKEN", "t", 1)
        defer { unsetenv("GEMINI_API_KEY"); unsetenv("SOME_SERVICE_TOKEN") }
        let (servers, registry) = await startRough()
        let env = await registry.answer([FunctionCall(id: "1", name: "env")]).first?.response["result"]?.stringValue ?? ""
        XCTAssertTrue(env.contains("PATH"))
        XCTAssertFalse(env.contains("GEMINI_API_KEY"))
        XCTAssertFalse(env.contains("SOME_SERVICE_TOKEN"))
        let status = await registry.answer([FunctionCall(id: "2", name: "status")]).first?.response["result"]?.stringValue ?? ""
        XCTAssertTrue(status.contains("SigBlk:\t0000000000000000"), status)
        let pids = servers.pids
        XCTAssertEqual(pids.count, 1)
        await servers.stop()
        for pid in pids { XCTAssertFalse(Self.alive(pid), "server \(pid) outlived stop()") }
    }

    /// Item 10: servers that hang at start are started together, not one after the other.
    func testServersStartInParallel() async throws {
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("parley-start-\(UUID())").path
        setenv("PARLEY_TEST_START_MARK", mark, 1)
        defer { unsetenv("PARLEY_TEST_START_MARK") }
        var registry = ToolRegistry()
        let configs = ["a", "b"].map { MCPServerConfig(name: $0, command: "python3", args: [script, $0]) }
        let (servers, problems) = await MCPServers.start(configs, into: &registry, timeout: 3, logger: Logger(label: "test"))
        XCTAssertEqual(problems.count, 2)
        let times = ["a", "b"].compactMap { try? String(contentsOfFile: "\(mark).\($0)", encoding: .utf8) }.compactMap(Double.init)
        XCTAssertEqual(times.count, 2, "both servers were started")
        if times.count == 2 { XCTAssertLessThan(abs(times[0] - times[1]), 3, "the second did not wait for the first to time out") }
        for n in ["a", "b"] { try? FileManager.default.removeItem(atPath: "\(mark).\(n)") }
        await servers.stop()
    }

    /// Item 5: the shell tool's command sees no secret, unless the user passes it.
    func testShellCommandsSeeNoSecretsUnlessPassed() async throws {
        setenv("GEMINI_API_KEY", "test-secret-value", 1)
        setenv("GOOGLE_API_KEY", "test-secret-value", 1)
        setenv("MY_DB_PASSWORD", "pw", 1)
        defer { for n in ["GEMINI_API_KEY", "GOOGLE_API_KEY", "MY_DB_PASSWORD"] { unsetenv(n) } }
        let plain = await ShellTool().run("env")
        XCTAssertFalse(plain.output.contains("test-secret-value"), plain.output)
        XCTAssertFalse(plain.output.contains("MY_DB_PASSWORD"))
        XCTAssertTrue(plain.output.contains("PATH="))
        let passed = await ShellTool(environment: ToolEnvironment.clean(passing: ["MY_DB_PASSWORD"])).run("env")
        XCTAssertTrue(passed.output.contains("MY_DB_PASSWORD=pw"))
        XCTAssertFalse(passed.output.contains("GEMINI_API_KEY"))
    }

    func testSecretNames() {
        for n in ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "PGPASSWORD",
                  "GOOGLE_APPLICATION_CREDENTIALS", "npm_config__authToken", "HF_TOKEN"] {
            XCTAssertTrue(ToolEnvironment.looksSecret(n), n)
        }
        for n in ["PATH", "HOME", "PWD", "LANG", "TERM", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "KEYBOARD_LAYOUT"] {
            XCTAssertFalse(ToolEnvironment.looksSecret(n), n)
        }
    }

    /// Item 7: read_file refuses a FIFO at once instead of blocking forever.
    func testReadFileRefusesAFIFO() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-fifo-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(mkfifo(dir + "/pipe", 0o600), 0)
        let tools = FileTools(allowed: [dir])
        XCTAssertThrowsError(try tools.readFile(["path": .string(dir + "/pipe")])) { e in
            XCTAssertTrue("\(e)".contains("not a regular file"), "\(e)")
        }
    }

    /// Item 10: a child that left the command's process group with setsid is killed with it.
    func testASetsidChildDiesWithItsCommand() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-setsid-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        var tool = ShellTool()
        tool.timeLimit = 1
        let r = await tool.run("setsid sh -c 'echo $$ > \(pidFile); exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 30")
        XCTAssertTrue(r.timedOut)
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return XCTFail("the setsid child did not start") }
        let deadline = Date().addingTimeInterval(5)
        while Self.alive(pid) && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(Self.alive(pid), "the setsid child \(pid) survived")
    }

    /// Alive and not a zombie.
    static func alive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }
}
