import Live
import Logging
import ParleyTime
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ParleyLock

/// A local server that speaks the server side of the Gemini Live protocol over WebSocket, for tests,
/// `parley --demo` and `parley simulate`. It checks what the real service checks (closing with the real codes
/// and reasons), answers like a model (transcripts, voice-like 24 kHz audio, tool calls, resumption handles) and
/// injects the faults its ``SimulatorOptions`` ask for. Each connection is independent; many may run at once.
public final class LiveSimulator: Sendable {
    /// The path of the real service; the simulator accepts any path.
    public static let path = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
    /// The largest frame accepted from a client.
    public static let maxFrameSize = 16 << 20

    /// How this simulator behaves.
    public let options: SimulatorOptions

    private let logger: Logger
    private let group: any EventLoopGroup
    private let store: SimulatorStore
    private let server = Locked<ServerState>(ServerState())

    private struct ServerState {
        var channel: (any Channel)?
        var host = "127.0.0.1"
        var port: Int?
        var children: [ObjectIdentifier: any Channel] = [:]
        var down: OutageMode?
        /// The port to come back on after an outage that unbound it.
        var downPort: Int?
        var outageTask: Task<Void, Never>?
    }

    /// - Parameters:
    ///   - options: checks, answers and faults.
    ///   - logger: where the simulator logs (never stdout); silent by default.
    ///   - eventLoopGroup: the loops that run the server; NIO's shared group by default.
    ///   - time: the clock resumption handles age on (the service keeps them 2 hours).
    public init(
        options: SimulatorOptions = .init(),
        logger: Logger = Logger(label: "parley.simulator", factory: { _ in SwiftLogNoOpLogHandler() }),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        time: TimeSource = .monotonic
    ) {
        self.options = options
        self.logger = logger
        group = eventLoopGroup
        store = SimulatorStore(scope: options.faultScope, time: time)
    }

    /// Starts listening and returns the bound port (pass 0, the default, for any free port).
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> Int {
        if let port = server.withLock({ $0.port }) { return port }
        let bound = try await bind(host: host, port: port)
        if let outage = options.outage {
            let task = Task { [weak self] in
                try? await Task.sleep(for: outage.after)
                guard !Task.isCancelled else { return }
                try? await self?.setDown(outage.mode)
                try? await Task.sleep(for: outage.length)
                guard !Task.isCancelled else { return }
                try? await self?.setDown(nil)
            }
            server.withLock { $0.outageTask = task }
        }
        return bound
    }

    /// Takes the simulator down (every open connection drops, as when the network goes away) or brings it back
    /// on the same port (pass nil). Down with `.refuseConnections` nothing listens; with `.closeImmediately`
    /// connections are accepted and closed before the upgrade.
    public func setDown(_ mode: OutageMode?) async throws {
        let (listener, children, host, port) = server.withLock { s -> ((any Channel)?, [any Channel], String, Int?) in
            let was = s.down
            s.down = mode
            guard mode != nil, was == nil else { return (nil, [], s.host, s.downPort) }
            s.downPort = s.port
            let kids = Array(s.children.values)
            s.children = [:]
            var listener: (any Channel)?
            if mode == .refuseConnections {
                listener = s.channel
                s.channel = nil
            }
            return (listener, kids, s.host, s.port)
        }
        if mode == nil {
            // Back up: listen again if the listener was closed.
            if server.withLock({ $0.channel == nil }), let port {
                // Connections closed when it went down may still hold the port for a moment (FIN_WAIT).
                var tries = 0
                while true {
                    do {
                        _ = try await bind(host: host, port: port)
                        break
                    } catch where tries < 100 {
                        tries += 1
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
            }
            logger.info("simulator is back up")
            return
        }
        logger.info("simulator goes down", metadata: ["mode": "\(String(describing: mode))"])
        for child in children { try? await child.close() }
        try await listener?.close()
    }

    private func bind(host: String, port: Int) async throws -> Int {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                if self.server.withLock({ $0.down != nil }) {
                    self.store.record { $0.connectionsRefusedWhileDown += 1 }
                    return channel.close()
                }
                self.track(channel)
                return channel.eventLoop.makeCompletedFuture { try self.configure(channel) }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        let bound = channel.localAddress?.port ?? port
        server.withLock {
            $0.channel = channel
            $0.host = host
            $0.port = bound
        }
        logger.info("simulator listening", metadata: ["host": "\(host)", "port": "\(bound)"])
        return bound
    }

    /// The bound port, once started.
    public var port: Int? { server.withLock { $0.port } }

    /// The URL a client connects to: the real service's path on this host and port.
    public var url: String {
        server.withLock { s in
            let host = s.host.contains(":") ? "[\(s.host)]" : s.host
            return "ws://\(host):\(s.port ?? 0)\(Self.path)"
        }
    }

    /// Stops listening and closes every open connection.
    public func stop() async throws {
        let (channel, children) = server.withLock { s -> ((any Channel)?, [any Channel]) in
            s.outageTask?.cancel()
            s.outageTask = nil
            s.down = nil
            let c = s.channel
            s.channel = nil
            s.port = nil
            let kids = Array(s.children.values)
            s.children = [:]
            return (c, kids)
        }
        for child in children { try? await child.close() }
        try await channel?.close()
    }

    /// Returns once the simulator has stopped (for `parley simulate`, which serves until it is interrupted).
    public func waitUntilStopped() async throws {
        guard let channel = server.withLock({ $0.channel }) else { return }
        try await channel.closeFuture.get()
    }

    /// A snapshot of what the simulator has seen and sent.
    public func stats() -> SimulatorStats { store.stats }

    // MARK: - Pipeline

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        server.withLock { $0.children[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = self.server.withLock { $0.children.removeValue(forKey: id) }
        }
    }

    private func configure(_ channel: any Channel) throws {
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: Self.maxFrameSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { [self] channel, head in
                channel.eventLoop.makeCompletedFuture { try self.upgraded(channel, head: head) }
            }
        )
        let sync = channel.pipeline.syncOperations
        try sync.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try sync.addHandler(HTTPRejectHandler(), name: HTTPRejectHandler.name)
    }

    private func upgraded(_ channel: any Channel, head: HTTPRequestHead) throws {
        let sync = channel.pipeline.syncOperations
        sync.removeHandler(name: HTTPRejectHandler.name, promise: nil)
        let number = store.acceptConnection()
        let session = SimulatedSession(
            options: options, directory: store, keyAccepted: keyAccepted(head.headers), connection: number,
            backend: head.uri.contains("LlmBidiService") ? .vertex : .geminiAPI, presented: Self.presented(head.headers))
        try sync.addHandler(NIOWebSocketFrameAggregator(
            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 4096, maxAccumulatedFrameSize: Self.maxFrameSize))
        try sync.addHandler(SimulatorConnectionHandler(
            session: session, store: store, faults: options.faults, textFrames: options.sendTextFrames,
            usageNaming: options.usageNaming, logger: logger))
    }

    /// The credential in the `Authorization` header (or an API key).
    static func presented(_ headers: HTTPHeaders) -> PresentedCredential {
        if let value = headers["authorization"].first {
            if value.hasPrefix("Bearer ") { return .bearer(String(value.dropFirst("Bearer ".count))) }
            if value.hasPrefix("Token ") { return .ephemeral(String(value.dropFirst("Token ".count))) }
            return .other
        }
        return headers["x-goog-api-key"].isEmpty ? .none : .other
    }

    /// The real service checks the key once the WebSocket is up; so does the simulator (on the first message).
    private func keyAccepted(_ headers: HTTPHeaders) -> Bool {
        guard let expected = options.apiKey else { return true }
        if headers["x-goog-api-key"].contains(expected) { return true }
        return headers["authorization"].contains("Token \(expected)")
    }
}

/// Answers a plain HTTP request (no WebSocket upgrade) with 426, so a stray browser or curl gets an answer.
final class HTTPRejectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    static let name = "parley-simulator-http-reject"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let body = "This is the parley Live simulator: connect with a WebSocket.\n"
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        headers.add(name: "content-length", value: "\(body.utf8.count)")
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .upgradeRequired, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}
