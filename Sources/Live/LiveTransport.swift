import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import WSClient

/// What a transport reports about one connection.
public enum TransportEvent: Sendable {
    case opened
    /// A frame's bytes (text or binary frames alike).
    case frame(Data)
    case closed(CloseReason)
}

/// One open (or opening) connection.
public protocol LiveConnection: Sendable {
    /// Queues a text frame; never blocks.
    func send(_ text: String)
    /// Starts the close handshake.
    func close(code: Int, reason: String)
}

/// Opens connections to the Live service. The session uses one at a time.
/// `onEvent` must never be called from inside `open` itself: the session opens connections under its lock.
public protocol LiveTransport: Sendable {
    func open(
        url: String, headers: [(name: String, value: String)], onEvent: @escaping @Sendable (TransportEvent) -> Void
    ) -> any LiveConnection
}

/// The WebSocket transport on swift-websocket's `WebSocketClient`, TLS through swift-nio-ssl with the system
/// trust store (or `SSL_CERT_FILE` when set).
public struct WebSocketTransport: LiveTransport {
    /// Server messages can be hundreds of KB; NIO's 16 KiB default fails with close 1009.
    public static let maxFrameSize = 16 << 20
    let logger: Logger

    public init(logger: Logger = Logger(label: "parley.transport")) { self.logger = logger }

    public func open(
        url: String, headers: [(name: String, value: String)], onEvent: @escaping @Sendable (TransportEvent) -> Void
    ) -> any LiveConnection {
        let commands = OutboundQueue<Command>()
        let connection = Connection(commands: commands)
        var configuration = WebSocketClientConfiguration(maxFrameSize: Self.maxFrameSize, closeTimeout: .seconds(3))
        for h in headers {
            if let name = HTTPField.Name(h.name) { configuration.additionalHeaders.append(HTTPField(name: name, value: h.value)) }
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty {
            tls.trustRoots = .file(file)
        }
        let logger = self.logger
        // On the network thread: frames go between the socket and the session without a hop through the pool.
        Task(executorPreference: NetworkExecutor.shared) {
            do {
                let frame = try await WebSocketClient.connect(
                    url: url, configuration: configuration, tlsConfiguration: tls, logger: logger
                ) { inbound, outbound, _ in
                    onEvent(.opened)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: Self.maxFrameSize) {
                                switch message {
                                case .text(let s): onEvent(.frame(Data(s.utf8)))
                                case .binary(let b): onEvent(.frame(Data(b.readableBytesView)))
                                }
                            }
                        }
                        group.addTask {
                            try await withTaskCancellationHandler {
                                var batch: [Command] = []
                                while await commands.next(into: &batch) {
                                    for command in batch {
                                        switch command {
                                        case .text(let s):
                                            try await outbound.write(.text(s))
                                        case .close(let code, let reason):
                                            try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                                            // Keep reading until the server answers the close.
                                            try await Task.sleep(for: .seconds(3600))
                                        }
                                    }
                                    batch.removeAll(keepingCapacity: true)
                                }
                            } onCancel: {
                                commands.finish()
                            }
                        }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
                let reason = frame.map {
                    CloseReason(code: Int(UInt16(webSocketErrorCode: $0.closeCode)), reason: $0.reason ?? "")
                } ?? .dropped("the connection ended without a close frame")
                onEvent(.closed(reason))
            } catch {
                onEvent(.closed(.dropped(Self.describe(error, url: url))))
            }
            commands.finish()
        }
        return connection
    }

    enum Command: Sendable {
        case text(String)
        case close(Int, String)
    }

    final class Connection: LiveConnection {
        let commands: OutboundQueue<Command>
        init(commands: OutboundQueue<Command>) { self.commands = commands }
        func send(_ text: String) { commands.push(.text(text)) }
        func close(code: Int, reason: String) { commands.push(.close(code, reason)) }
    }

    /// A short human description of a connection failure. The URL carries no secret (keys go in headers).
    static func describe(_ error: any Error, url: String) -> String {
        let host = URLComponents(string: url).map { "\($0.host ?? "?")\($0.port.map { ":\($0)" } ?? "")" } ?? url
        if let e = error as? IOError { return "cannot reach \(host): \(e.description)" }
        if let e = error as? NIOConnectionError {
            return "cannot reach \(host): \(e.connectionErrors.first.map { "\($0.error)" } ?? "connection failed")"
        }
        if let e = error as? WebSocketClientError { return "WebSocket upgrade to \(host) failed (\(e))" }
        return "connection to \(host) failed: \(error)"
    }
}
