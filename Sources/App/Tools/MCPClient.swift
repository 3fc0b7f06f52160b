import Foundation
import Live
import Logging
import ParleyLock

/// Why an MCP request failed.
enum MCPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a JSON-RPC error.
    case server(method: String, code: Int, message: String)
    /// The server's answer did not have the shape MCP gives it.
    case malformedReply(method: String, detail: String)
    /// The server ended its output (it exited, or closed stdout) while requests were in flight.
    case closed
    /// parley stopped the client.
    case disconnected

    var message: String {
        switch self {
        case .server(let method, let code, let message): return "the server answered \(method) with error \(code): \(message)"
        case .malformedReply(let method, let detail): return "the server's answer to \(method) cannot be read: \(detail)"
        case .closed: return "the server exited (it closed its output) before answering"
        case .disconnected: return "the connection to the server was closed by parley"
        }
    }

    var hint: String {
        switch self {
        case .server(_, let code, _) where code == MCP.ErrorObject.methodNotFound:
            return "the server does not offer this; check that it is an MCP server with tools"
        case .server: return "the message is the server's own; see its documentation"
        case .malformedReply: return "the server may speak another protocol version; try updating it"
        case .closed: return "run the server's command by hand to see why it stops"
        case .disconnected: return "parley is quitting or restarting its tools"
        }
    }

    var description: String { "\(message) (\(hint))" }
}

/// A client for one MCP server over JSON-RPC 2.0 on a line transport: parley's requests are matched to their
/// answers by id, so several may be in flight; the server's requests are answered (`ping` with an empty result,
/// anything else with "method not found"); its notifications are logged and otherwise ignored.
final class MCPClient: Sendable {
    private let transport: LineTransport
    private let logger: Logger
    /// Why requests can no longer be answered, checked while one waits (e.g. the server process has exited,
    /// even if a child of it still holds its output open).
    private let failure: @Sendable () -> (any Error)?
    private let state = Locked(State())

    private struct State {
        var nextID: Int64 = 1
        /// Requests in flight, by id; each gets its response line or an error.
        var pending: [Int64: (method: String, answer: CheckedContinuation<Data, any Error>)] = [:]
        /// Set once the transport has ended; later requests fail with it at once.
        var ended: MCPClientError?
    }

    init(transport: LineTransport, logger: Logger, failure: @escaping @Sendable () -> (any Error)? = { nil }) {
        self.transport = transport
        self.logger = logger
        self.failure = failure
    }

    /// Starts reading, then `initialize` and `notifications/initialized`. Returns what the server says of itself.
    @discardableResult
    func connect(clientVersion: String, timeout: Double) async throws -> MCP.InitializeResult {
        transport.start(onLine: { [weak self] line in self?.received(line) }, onEnd: { [weak self] in self?.end(.closed) })
        let params: JSONValue = [
            "protocolVersion": .string(MCP.protocolVersion),
            "capabilities": [:],
            "clientInfo": ["name": "parley", "version": .string(clientVersion)],
        ]
        let result = try await request("initialize", params: params, as: MCP.InitializeResult.self, timeout: timeout)
        if result.protocolVersion != MCP.protocolVersion {
            logger.debug("MCP server speaks protocol \(result.protocolVersion)")
        }
        try send(MCP.Outgoing(method: "notifications/initialized"))
        return result
    }

    /// One page of the server's tools.
    func listTools(cursor: String?, timeout: Double) async throws -> MCP.ToolsPage {
        let params: JSONValue? = cursor.map { ["cursor": .string($0)] }
        return try await request("tools/list", params: params, as: MCP.ToolsPage.self, timeout: timeout)
    }

    /// All the server's tools, page after page. A server that repeats a cursor is stopped, not followed forever.
    func listAllTools(timeout: Double) async throws -> [MCP.Tool] {
        var tools: [MCP.Tool] = []
        var cursor: String?
        var seen: Set<String> = []
        repeat {
            let page = try await listTools(cursor: cursor, timeout: timeout)
            tools += page.tools
            cursor = page.nextCursor
            if let c = cursor, !seen.insert(c).inserted {
                throw MCPClientError.malformedReply(method: "tools/list", detail: "the cursor \(c.prefix(40)) came back a second time")
            }
        } while cursor != nil
        return tools
    }

    /// Calls a tool; `what` names the call in a timeout's message.
    func callTool(name: String, arguments: [String: JSONValue]?, timeout: Double, what: String? = nil) async throws -> MCP.CallResult {
        var params: [String: JSONValue] = ["name": .string(name)]
        if let arguments { params["arguments"] = .object(arguments) }
        return try await request("tools/call", params: .object(params), as: MCP.CallResult.self, timeout: timeout, what: what)
    }

    /// Stops reading and fails what is still in flight.
    func disconnect() {
        transport.stop()
        end(.disconnected)
    }

    // MARK: - Requests

    /// Sends a request and waits for its answer: the typed result, the server's error, or a failure when the
    /// time runs out, `failure` reports one, the transport ends, or the caller is cancelled.
    func request<R: Decodable & Sendable>(
        _ method: String, params: JSONValue?, as type: R.Type, timeout: Double, what: String? = nil
    ) async throws -> R {
        let id = state.withLock { s in defer { s.nextID += 1 }; return s.nextID }
        let line: Data
        do {
            line = try await withTimeout(timeout, what: what ?? method, abort: failure) {
                try await self.exchange(id: id, method: method, params: params)
            }
        } catch {
            forget(id)
            // The server may stop working on it; `initialize` must not be cancelled (the spec says so).
            if method != "initialize", !(error is MCPClientError) {
                try? send(MCP.Outgoing(method: "notifications/cancelled", params: ["requestId": .number(Double(id)), "reason": .string("\(error)")]))
            }
            throw error
        }
        do {
            return try MCP.result(line, as: type)
        } catch {
            throw MCPClientError.malformedReply(method: method, detail: Self.describe(error))
        }
    }

    /// Registers the request, writes it, and waits for its response line.
    private func exchange(id: Int64, method: String, params: JSONValue?) async throws -> Data {
        let message = try JSONEncoder().encode(MCP.Outgoing(id: .number(id), method: method, params: params))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Data, any Error>) in
                let refused: (any Error)? = state.withLock { s in
                    if let ended = s.ended { return ended }
                    if Task.isCancelled { return CancellationError() }
                    s.pending[id] = (method, c)
                    return nil
                }
                if let refused { return c.resume(throwing: refused) }
                do {
                    try transport.send(message)
                } catch {
                    state.withLock { $0.pending.removeValue(forKey: id) }?.answer.resume(throwing: error)
                }
            }
        } onCancel: {
            forget(id)
        }
    }

    private func forget(_ id: Int64) {
        state.withLock { $0.pending.removeValue(forKey: id) }?.answer.resume(throwing: CancellationError())
    }

    private func send(_ message: some Encodable) throws {
        try transport.send(JSONEncoder().encode(message))
    }

    // MARK: - What the server sends

    /// One line from the server (on the transport's thread).
    private func received(_ line: Data) {
        let message: MCP.Incoming
        do {
            message = try MCP.Incoming(line: line)
        } catch {
            logger.debug("MCP server wrote a line that is not a JSON-RPC message (\(line.count) bytes)")
            return
        }
        switch message {
        case .response(let id, let error):
            let waiting = state.withLock { s -> (method: String, answer: CheckedContinuation<Data, any Error>)? in
                guard case .number(let n) = id else { return nil }
                return s.pending.removeValue(forKey: n)
            }
            guard let waiting else { return logger.debug("MCP response to \(id), which nothing awaits") }
            if let error {
                let message = String(error.message.prefix(2000))
                waiting.answer.resume(throwing: MCPClientError.server(method: waiting.method, code: error.code, message: message))
            } else {
                waiting.answer.resume(returning: line)
            }
        case .request(let id, let method):
            let reply = method == "ping"
                ? MCP.Reply(id: id, result: [:])
                : MCP.Reply(id: id, error: MCP.ErrorObject(code: MCP.ErrorObject.methodNotFound, message: "parley does not offer \(method.prefix(100))"))
            // Not on this thread: a full pipe to the server must not stop reading its answers.
            Task { [transport, logger] in
                do { try transport.send(JSONEncoder().encode(reply)) } catch { logger.debug("MCP reply to \(method.prefix(100)): \(error)") }
            }
        case .notification(let method):
            logger.debug("MCP notification \(method.prefix(100)) ignored")
        case .unroutable(let why):
            logger.debug("MCP message ignored: \(why.prefix(200))")
        }
    }

    /// Fails every request in flight, and all later ones, with `reason`.
    private func end(_ reason: MCPClientError) {
        let waiting = state.withLock { s in
            if s.ended == nil { s.ended = reason }
            defer { s.pending = [:] }
            return s.pending.values.map(\.answer)
        }
        for c in waiting { c.resume(throwing: reason) }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "\((context.codingPath + [key]).map(\.stringValue).joined(separator: ".")) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
