import Foundation
import HTTPTypes
import Live
import LiveSimulator
import Logging
import NIOCore
import WSClient
import LiveTesting
import XCTest

/// What a test client saw from the simulator.
enum SimEvent: Sendable {
    case message(ServerMessage, binary: Bool)
    /// A frame that is not a valid server message (kept as text).
    case undecodable(String)
}

struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Events in arrival order, awaited one by one with a timeout.
actor EventInbox {
    private var buffer: [SimEvent] = []
    private var finished = false
    private var waiter: (id: Int, continuation: CheckedContinuation<SimEvent?, Never>)?
    private var nextWaiter = 0

    func push(_ e: SimEvent) {
        if let w = waiter {
            waiter = nil
            w.continuation.resume(returning: e)
        } else {
            buffer.append(e)
        }
    }

    func finish() {
        finished = true
        if let w = waiter {
            waiter = nil
            w.continuation.resume(returning: nil)
        }
    }

    /// The next event; nil when the connection ended or the timeout passed.
    func next(timeout: Duration) async -> SimEvent? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if finished { return nil }
        nextWaiter += 1
        let id = nextWaiter
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { waiter = (id, $0) }
    }

    private func expire(_ id: Int) {
        guard let w = waiter, w.id == id else { return }
        waiter = nil
        w.continuation.resume(returning: nil)
    }
}

/// A WebSocket client over WSClient that sends client messages and collects the simulator's frames.
final class SimTestClient: Sendable {
    /// Generous: the test machine has two shared cores and builds may run beside the tests.
    static let defaultTimeout: Duration = .seconds(20)

    let inbox = EventInbox()
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<WebSocketCloseFrame?, any Error>

    init(url: String, apiKey: String? = nil, headers: [(String, String)] = []) {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        outgoing = continuation
        let inbox = inbox
        var config = WebSocketClientConfiguration()
        config.maxFrameSize = 16 << 20
        if let apiKey, let name = HTTPField.Name("x-goog-api-key") { config.additionalHeaders[name] = apiKey }
        for (n, v) in headers { if let name = HTTPField.Name(n) { config.additionalHeaders[name] = v } }
        task = Task {
            defer { Task { await inbox.finish() } }
            return try await WebSocketClient.connect(
                url: url, configuration: config, logger: Logger(label: "sim-test-client")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in stream { try await outbound.write(.text(text)) }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 16 << 20) {
                            switch message {
                            case .text(let t): await inbox.push(Self.decode(Data(t.utf8), binary: false))
                            case .binary(let b): await inbox.push(Self.decode(Data(b.readableBytesView), binary: true))
                            }
                        }
                    }
                    // Either the server closed (inbound ended) or the test closed (outbound finished).
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    static func decode(_ data: Data, binary: Bool) -> SimEvent {
        guard let m = try? LiveCodec().decodeServer(data) else { return .undecodable(String(decoding: data, as: UTF8.self)) }
        return .message(m, binary: binary)
    }

    func send(_ message: ClientMessage) throws { outgoing.yield(try LiveCodec().encode(message)) }
    func sendRaw(_ text: String) { outgoing.yield(text) }

    /// Ends the connection from the client side (a normal close).
    func close() { outgoing.finish() }

    /// The close frame the server sent (nil when the connection dropped without one).
    func closeFrame(timeout: Duration = defaultTimeout) async throws -> WebSocketCloseFrame? {
        try await withThrowingTaskGroup(of: WebSocketCloseFrame?.self) { group in
            group.addTask { try await self.task.value }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TestTimeout(what: "the connection to close")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    func next(timeout: Duration = defaultTimeout) async throws -> SimEvent {
        guard let e = await inbox.next(timeout: timeout) else { throw TestTimeout(what: "a server frame") }
        return e
    }

    func nextMessage(timeout: Duration = defaultTimeout) async throws -> ServerMessage {
        switch try await next(timeout: timeout) {
        case .message(let m, _): return m
        case .undecodable(let t): throw TestTimeout(what: "a message, got undecodable \(t.prefix(80))")
        }
    }

    /// Collects messages until one satisfies `done`; returns all of them, that one last.
    func collect(until what: String, timeout: Duration = defaultTimeout, _ done: (ServerMessage) -> Bool) async throws -> [ServerMessage] {
        var seen: [ServerMessage] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TestTimeout(what: what) }
            guard let e = await inbox.next(timeout: left) else { throw TestTimeout(what: what) }
            if case .message(let m, _) = e {
                seen.append(m)
                if done(m) { return seen }
            }
        }
    }

    /// Sends setup and waits for `setupComplete`.
    func setUp(_ setup: Setup) async throws {
        try send(.setup(setup))
        let m = try await nextMessage()
        XCTAssertNotNil(m.setupComplete, "expected setupComplete first")
    }
}

/// Sends `milliseconds` of audio in 20 ms chunks.
func sendAudio(_ client: SimTestClient, milliseconds: Int, amplitude: Double = 0.3) throws {
    for _ in 0..<(milliseconds / 20) {
        try client.send(.realtimeInput(.micAudio(pcm16k(milliseconds: 20, amplitude: amplitude))))
    }
}

/// Polls the simulator's stats until `condition` holds (an awaited condition, not a fixed sleep).
func waitForStats(
    _ sim: LiveSimulator, _ what: String, timeout: Duration = SimTestClient.defaultTimeout,
    _ condition: (SimulatorStats) -> Bool
) async throws -> SimulatorStats {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        let s = sim.stats()
        if condition(s) { return s }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestTimeout(what: what)
}
