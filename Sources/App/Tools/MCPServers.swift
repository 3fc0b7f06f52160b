import Foundation
import ParleyTime
import Live
import Logging
import ParleyLock
import SystemPackage

/// One `[[mcp]]` entry of the config: a stdio MCP server parley starts and whose tools it offers to Gemini.
struct MCPServerConfig: Sendable, Equatable {
    var name: String
    var command: String
    var args: [String] = []
    /// Ask the user before each call (the default), or never.
    var confirm = true
    /// Secret-looking variables the server may still see (`[tools] pass_env`).
    var passEnv: [String] = []
    /// Seconds the server may take to start and list its tools (`[tools] mcp_start_timeout`).
    var startTimeout: Double = 10
    /// Seconds one call may take (`[tools] call_timeout`).
    var callTimeout: Double = 60
}

/// The MCP servers of a session: started at launch (in parallel), their tools declared in `setup`, calls
/// routed to them. A server that fails to start is reported and skipped; it never stops parley.
final class MCPServers: Sendable {
    private let running: [(name: String, client: MCPClient, process: ChildProcess)]

    /// The most text one call's result hands to the model; the rest is cut with a note saying so.
    static let maxResultBytes = 1 << 20

    private init(running: [(String, MCPClient, ChildProcess)]) { self.running = running }

    /// The process ids of the running servers (for tests and diagnostics).
    var pids: [pid_t] { running.map(\.process.pid) }

    /// Starts every server at once (each within its start timeout; `timeout` overrides it) and registers
    /// their tools in config order. Returns the problems to show.
    static func start(
        _ configs: [MCPServerConfig], into registry: inout ToolRegistry, timeout: Double? = nil, logger: Logger
    ) async -> (MCPServers, problems: [String]) {
        // A server that dies must cost an EPIPE on the next write, not parley's life.
        if !configs.isEmpty { signal(SIGPIPE, SIG_IGN) }
        let started = await withTaskGroup(of: (Int, Result<(MCPClient, ChildProcess, [MCP.Tool]), any Error>).self) { group in
            for (i, config) in configs.enumerated() {
                group.addTask { (i, await startOne(config, timeout: timeout ?? config.startTimeout, logger: logger)) }
            }
            var out: [(Int, Result<(MCPClient, ChildProcess, [MCP.Tool]), any Error>)] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var running: [(String, MCPClient, ChildProcess)] = []
        var problems: [String] = []
        for (config, result) in zip(configs, started) {
            switch result {
            case .success(let (client, process, tools)):
                running.append((config.name, client, process))
                for tool in tools {
                    if registry.tools[tool.name] != nil {
                        problems.append("MCP server \(config.name): tool \(tool.name) clashes with another tool and is left out")
                        continue
                    }
                    registry.register(definition(tool, server: config, client: client, process: process))
                }
                logger.info("MCP server \(config.name): \(tools.count) tools")
            case .failure(let error):
                problems.append("MCP server \(config.name) (\(config.command)) could not start: \(error) — skipped")
            }
        }
        return (MCPServers(running: running), problems)
    }

    private static func startOne(_ config: MCPServerConfig, timeout: Double, logger: Logger) async -> Result<(MCPClient, ChildProcess, [MCP.Tool]), any Error> {
        let process: ChildProcess
        do {
            process = try ChildProcess(
                command: config.command, args: config.args, environment: ToolEnvironment.clean(passing: config.passEnv))
        } catch {
            return .failure(error)
        }
        let client = MCPClient(
            transport: LineTransport(input: process.fromChild, output: process.toChild, logger: logger), logger: logger,
            failure: { process.exitStatus.map { Exited(status: $0) } })
        do {
            // One time limit for the whole start, however many pages the tools come in.
            let tools = try await withTimeout(timeout, what: "the start (initialize, tools/list)") {
                try await client.connect(clientVersion: ParleyVersion.text, timeout: timeout)
                return try await client.listAllTools(timeout: timeout)
            }
            return .success((client, process, tools))
        } catch {
            client.disconnect()
            process.terminate()
            return .failure(await Exited.explained(error, process: process))
        }
    }

    /// Stops every server: disconnects, then SIGTERM (SIGKILL after a grace period) to each server's session.
    func stop() async {
        for r in running { r.client.disconnect() }
        for r in running { r.process.terminate() }
    }

    /// A registry entry that routes calls to the server: answered within the call timeout, with an error as
    /// soon as the server dies, and with at most `maxResultBytes` of text.
    static func definition(_ tool: MCP.Tool, server: MCPServerConfig, client: MCPClient, process: ChildProcess? = nil) -> ToolDefinition {
        var d = ToolDefinition(
            name: tool.name, description: tool.description ?? tool.title ?? tool.name,
            parameters: geminiSchema(tool.inputSchema)
        ) { args in
            let result: MCP.CallResult
            do {
                result = try await client.callTool(
                    name: tool.name, arguments: args.objectValue, timeout: server.callTimeout, what: "\(server.name) → \(tool.name)")
            } catch {
                throw await Exited.explained(error, process: process)
            }
            let (text, cut) = resultText(result.content, limit: maxResultBytes)
            var answer: [String: JSONValue] = result.isError
                ? ["error": .string(text), "server": .string(server.name)] : ["result": .string(text)]
            if let cut {
                answer["truncated"] = true
                answer["note"] = .string("the result was \(cut) bytes; only the first \(maxResultBytes) are given")
            }
            return .object(answer)
        }
        d.server = server.name
        if server.confirm {
            d.confirmation = { args in "\(server.name) → \(tool.name)(\(args.compactText))" }
        }
        return d
    }

    /// The call's content as text, at most `limit` UTF-8 bytes (cut at a character boundary); the full size
    /// when it was cut.
    static func resultText(_ content: [MCP.Content], limit: Int) -> (String, cut: Int?) {
        var out = Data()
        var total = 0
        for (i, item) in content.enumerated() {
            let piece: String
            switch item {
            case .text(let t): piece = t
            case .image(let mime): piece = "[\(mime) image]"
            case .audio(let mime): piece = "[\(mime) audio]"
            case .resource(let uri, _): piece = "[resource \(uri)]"
            case .resourceLink(let uri, _): piece = "[link \(uri)]"
            case .other(let type): piece = type.isEmpty ? "[content without a type]" : "[\(type.prefix(40)) content]"
            }
            let bytes = (i > 0 ? "\n" : "") + piece
            total += bytes.utf8.count
            if out.count < limit { out.append(contentsOf: bytes.utf8.prefix(limit - out.count)) }
        }
        // Dropping a cut multi-byte sequence's tail keeps the text valid UTF-8.
        var text = String(decoding: out, as: UTF8.self)
        if text.last == "\u{FFFD}", total > limit { text.removeLast() }
        return (text, total > limit ? total : nil)
    }

    /// MCP speaks JSON Schema; Gemini's function declarations take an OpenAPI subset and reject the rest
    /// (e.g. `$schema`, `additionalProperties`), so keep only what it knows.
    static func geminiSchema(_ schema: JSONValue) -> JSONValue {
        let keep: Set<String> = ["type", "description", "properties", "required", "items", "enum", "format", "nullable",
                                 "minimum", "maximum", "minItems", "maxItems", "title", "anyOf", "default"]
        switch schema {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for (k, v) in o where keep.contains(k) {
                switch k {
                case "properties":
                    if case .object(let props) = v { out[k] = .object(props.mapValues(geminiSchema)) }
                case "items": out[k] = geminiSchema(v)
                case "anyOf": if case .array(let a) = v { out[k] = .array(a.map(geminiSchema)) }
                default: out[k] = v
                }
            }
            if out["type"] == nil, out["anyOf"] == nil { out["type"] = "object" }
            return .object(out)
        default:
            return ["type": "object"]
        }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    let seconds: Double
    var description: String { "no answer to \(what) within \(Int(seconds)) s" }
}

/// The server process ended; `status` is its wait status.
struct Exited: Error, CustomStringConvertible {
    let status: Int32
    var description: String {
        let how = status & 0x7F == 0 ? "with status \((status >> 8) & 0xFF)" : "on signal \(status & 0x7F)"
        return "the server exited \(how) (run its command by hand to see why it stops)"
    }

    /// `error`, or why the server ended when that is what it means: the end of its output comes a moment
    /// before its exit status can be read, so wait up to half a second for it.
    static func explained(_ error: any Error, process: ChildProcess?) async -> any Error {
        // A write that met a closed pipe (EPIPE) says the same as the end of the output: the server is gone.
        let gone = error as? MCPClientError == .closed || (error as? LineTransport.SendFailed)?.errno == EPIPE
        guard let process, gone else { return error }
        for _ in 0..<50 {
            if let status = process.exitStatus { return Exited(status: status) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return error
    }
}

/// Runs `body`, or fails after `seconds`, or as soon as `abort` (checked every 50 ms) returns an error. The body
/// is then cancelled and left behind, not awaited (a connection to a dead server may never notice). Cancelling
/// the caller cancels the body.
func withTimeout<T: Sendable>(
    _ seconds: Double, what: String, time: TimeSource = .monotonic, abort: @escaping @Sendable () -> (any Error)? = { nil },
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = Once()
    let running = Locked<(work: Task<Void, Never>, answer: CheckedContinuation<T, any Error>)?>(nil)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let work = Task {
                do {
                    let value = try await body()
                    if once.claim() { c.resume(returning: value) }
                } catch {
                    if once.claim() { c.resume(throwing: error) }
                }
            }
            running.withLock { $0 = (work, c) }
            if Task.isCancelled {
                work.cancel()
                if once.claim() { c.resume(throwing: CancellationError()) }
            }
            Task {
                let deadline = time.now() + min(seconds, 1e9)
                var reason: any Error = TimedOut(what: what, seconds: seconds)
                while time.now() < deadline {
                    try? await Task.sleep(for: .milliseconds(50))
                    if once.isClaimed { return }
                    if let e = abort() {
                        reason = e
                        break
                    }
                }
                if once.claim() {
                    work.cancel()
                    c.resume(throwing: reason)
                }
            }
        }
    } onCancel: {
        // Answer at once: a body that ignores cancellation (a call to a stuck server) must not hold the caller.
        guard let (work, answer) = running.withLock({ $0 }) else { return }
        work.cancel()
        if once.claim() { answer.resume(throwing: CancellationError()) }
    }
}

/// True for the first caller only.
final class Once: Sendable {
    private let done = Locked(false)
    func claim() -> Bool { done.withLock { d in defer { d = true }; return !d } }
    var isClaimed: Bool { done.withLock { $0 } }
}
