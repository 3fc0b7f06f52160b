import Foundation
import Live
import Logging
import MCP
import Synchronization
import SystemPackage

/// One `[[mcp]]` entry of the config: a stdio MCP server parley starts and whose tools it offers to Gemini.
struct MCPServerConfig: Sendable, Equatable {
    var name: String
    var command: String
    var args: [String] = []
    /// Ask the user before each call (the default), or never.
    var confirm = true
}

/// The MCP servers of a session: started at launch, their tools declared in `setup`, calls routed to them.
/// A server that fails to start is reported and skipped; it never stops parley.
final class MCPServers: Sendable {
    private let running: [(name: String, client: Client, process: Process)]

    private init(running: [(String, Client, Process)]) { self.running = running }

    /// Starts every server (each within `timeout`) and registers its tools. Returns the problems to show.
    static func start(
        _ configs: [MCPServerConfig], into registry: inout ToolRegistry, timeout: Double = 10, logger: Logger
    ) async -> (MCPServers, problems: [String]) {
        var running: [(String, Client, Process)] = []
        var problems: [String] = []
        // A server that dies must cost an EPIPE on the next write, not parley's life.
        if !configs.isEmpty { signal(SIGPIPE, SIG_IGN) }
        for config in configs {
            let process = Process()
            do {
                let watched = process
                let (client, tools) = try await withTimeout(timeout, what: "initialize", abort: {
                    watched.isRunning || watched.processIdentifier == 0 ? nil : Exited(status: watched.terminationStatus)
                }) {
                    try await connect(config, process: process, logger: logger)
                }
                running.append((config.name, client, process))
                for tool in tools {
                    if registry.tools[tool.name] != nil {
                        problems.append("MCP server \(config.name): tool \(tool.name) clashes with another tool and is left out")
                        continue
                    }
                    registry.register(definition(tool, server: config, client: client))
                }
                logger.info("MCP server \(config.name): \(tools.count) tools")
            } catch {
                if process.isRunning { process.terminate() }
                problems.append("MCP server \(config.name) (\(config.command)) could not start: \(error) — skipped")
            }
        }
        return (MCPServers(running: running), problems)
    }

    /// Stops every server.
    func stop() async {
        for r in running {
            await r.client.disconnect()
            if r.process.isRunning { r.process.terminate() }
        }
    }

    private static func connect(_ config: MCPServerConfig, process: Process, logger: Logger) async throws -> (Client, [MCP.Tool]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [config.command] + config.args
        let toServer = Pipe(), fromServer = Pipe()
        process.standardInput = toServer
        process.standardOutput = fromServer
        process.standardError = FileHandle.nullDevice  // a server's chatter must never reach the terminal
        try process.run()
        let transport = StdioTransport(
            input: FileDescriptor(rawValue: fromServer.fileHandleForReading.fileDescriptor),
            output: FileDescriptor(rawValue: toServer.fileHandleForWriting.fileDescriptor),
            logger: logger)
        let client = Client(name: "parley", version: "0.1.0")
        do {
            try await client.connect(transport: transport)
            var tools: [MCP.Tool] = []
            var cursor: String?
            repeat {
                let page = try await client.listTools(cursor: cursor)
                tools += page.tools
                cursor = page.nextCursor
            } while cursor != nil
            return (client, tools)
        } catch {
            if process.isRunning { process.terminate() }
            throw error
        }
    }

    /// A registry entry that routes calls to the server.
    static func definition(_ tool: MCP.Tool, server: MCPServerConfig, client: Client) -> ToolDefinition {
        var d = ToolDefinition(
            name: tool.name, description: tool.description ?? tool.title ?? tool.name,
            parameters: geminiSchema(json(tool.inputSchema))
        ) { args in
            let arguments: [String: Value]? = try? JSONDecoder().decode([String: Value].self, from: JSONEncoder().encode(args))
            let result = try await client.callTool(name: tool.name, arguments: arguments)
            let text = result.content.map { content -> String in
                switch content {
                case .text(let t, _, _): t
                case .image(_, let mime, _, _): "[\(mime) image]"
                case .audio(_, let mime, _, _): "[\(mime) audio]"
                case .resource(let r, _, _): "[resource \(r.uri)]"
                case .resourceLink(let uri, _, _, _, _, _): "[link \(uri)]"
                }
            }.joined(separator: "\n")
            return result.isError == true ? ["error": .string(text), "server": .string(server.name)] : ["result": .string(text)]
        }
        d.server = server.name
        if server.confirm {
            d.confirmation = { args in "\(server.name) → \(tool.name)(\(args.compactText))" }
        }
        return d
    }

    static func json(_ value: Value) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))) ?? .object([:])
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

struct Exited: Error, CustomStringConvertible {
    let status: Int32
    var description: String { "the server exited with status \(status)" }
}

/// Runs `body`, or fails after `seconds`, or as soon as `abort` (checked every 50 ms) returns an error. The body
/// is then cancelled and left behind, not awaited (a connection to a dead server may never notice).
func withTimeout<T: Sendable>(
    _ seconds: Double, what: String, abort: @escaping @Sendable () -> (any Error)? = { nil },
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = Once()
    return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        let work = Task {
            do {
                let value = try await body()
                if once.claim() { c.resume(returning: value) }
            } catch {
                if once.claim() { c.resume(throwing: error) }
            }
        }
        Task {
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            var reason: any Error = TimedOut(what: what, seconds: seconds)
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
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
}

/// True for the first caller only.
final class Once: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool { done.withLock { d in defer { d = true }; return !d } }
}
