import Foundation
import Live
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ParleyTime

/// The network path to the Live endpoint, one step at a time (DNS, TCP, TLS, WebSocket upgrade, setup), so
/// `parley doctor` can say which step fails. A step after a failed one is skipped, not tried.
struct DoctorNetwork {
    var url: String
    var credential: Credential
    /// The setup message to send; nil skips the setup step (no key to send it with).
    var setup: Setup?
    var timeout: Double = 5
    let logger = Logger(label: "parley.doctor")

    /// The parts of a ws:// or wss:// URL the probes need.
    struct Target: Equatable {
        var secure: Bool
        var host: String
        var port: Int

        init?(url: String) {
            guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
                  let host = u.host, !host.isEmpty else { return nil }
            secure = scheme == "wss"
            // URLComponents keeps the brackets of an IPv6 literal.
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            port = u.port ?? (secure ? 443 : 80)
        }

        var isLoopback: Bool { host == "localhost" || host.hasPrefix("127.") || host == "::1" }
    }

    func run() async -> [DoctorCheck] {
        let area = "network"
        guard let target = Target(url: url) else {
            return [.fail(area, "endpoint", "\(url) is not a ws:// or wss:// URL", fix: "set --endpoint (or endpoint in the config) to a ws:// or wss:// URL")]
        }
        var checks: [DoctorCheck] = [.ok(area, "endpoint", Self.redacted(url))]
        func skipRest(_ items: [String]) {
            for item in items { checks.append(.skip(area, item, "not tried: an earlier step failed")) }
        }

        // DNS
        let start = TimeSource.monotonic.now()
        let address: SocketAddress
        do {
            let (host, port) = (target.host, target.port)
            address = try await withTimeout(timeout, what: "the DNS lookup of \(host)") {
                try SocketAddress.makeAddressResolvingHost(host, port: port)
            }
            checks.append(.ok(area, "DNS", "\(target.host) → \(address.ipAddress ?? "?") (\(Self.ms(since: start)))"))
        } catch {
            checks.append(.fail(area, "DNS", "cannot resolve \(target.host): \(Self.describe(error))",
                                fix: "check the host name and your DNS (resolv.conf, VPN, proxy); try `getent hosts \(target.host)`"))
            skipRest(["TCP", "TLS", "WebSocket", "setup"])
            return checks
        }

        // TCP
        let tcpStart = TimeSource.monotonic.now()
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(timeout * 1000)))
                .connect(to: address).get()
            try? await channel.close()
            checks.append(.ok(area, "TCP", "connected to port \(target.port) (\(Self.ms(since: tcpStart)))"))
        } catch {
            let local = target.isLoopback ? " (is `parley simulate` or your proxy running on that port?)" : ""
            checks.append(.fail(area, "TCP", "cannot connect to \(address.ipAddress ?? target.host) port \(target.port): \(Self.describe(error))",
                                fix: "check the port and any firewall or proxy between you and the service\(local)"))
            skipRest(["TLS", "WebSocket", "setup"])
            return checks
        }

        // TLS
        if target.secure {
            let tlsStart = TimeSource.monotonic.now()
            do {
                try await tlsHandshake(address: address, host: target.host)
                checks.append(.ok(area, "TLS", "handshake with \(target.host) verified (\(Self.ms(since: tlsStart)))"))
            } catch {
                checks.append(.fail(area, "TLS", "handshake failed: \(Self.describe(error))",
                                    fix: "check the system clock and CA certificates (apt-get install ca-certificates), or set SSL_CERT_FILE; a TLS-intercepting proxy needs its CA there"))
                skipRest(["WebSocket", "setup"])
                return checks
            }
        } else if target.isLoopback {
            checks.append(.skip(area, "TLS", "ws:// on loopback: no TLS needed"))
        } else {
            checks.append(.warn(area, "TLS", "ws:// is not encrypted: the key and your voice cross the network in clear",
                                fix: "use wss:// for anything beyond this machine"))
        }

        // WebSocket upgrade
        let wsStart = TimeSource.monotonic.now()
        do {
            try await upgrade()
            checks.append(.ok(area, "WebSocket", "upgrade accepted (\(Self.ms(since: wsStart)))"))
        } catch {
            checks.append(.fail(area, "WebSocket", "upgrade refused: \(Self.describe(error))",
                                fix: "check the endpoint path; a proxy must pass WebSocket upgrades through"))
            skipRest(["setup"])
            return checks
        }

        // setup → setupComplete: the key and the model, as the service sees them.
        guard let setup else {
            checks.append(.skip(area, "setup", "not tried: no key to send"))
            return checks
        }
        let setupStart = TimeSource.monotonic.now()
        switch await sessionSetup(setup) {
        case nil:
            checks.append(.ok(area, "setup", "setupComplete: \(setup.model) accepted (\(Self.ms(since: setupStart)))"))
        case let reason?:
            checks.append(.fail(area, "setup", reason.description, fix: reason.hint))
        }
        return checks
    }

    private func tlsHandshake(address: SocketAddress, host: String) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { tls.trustRoots = .file(file) }
        let context = try NIOSSLContext(configuration: tls)
        // SNI and certificate names are host names; an IP literal gets neither.
        let serverName: String? = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: promise))
                }
            }
        let channel = try await bootstrap.connect(to: address).get()
        defer { channel.close(promise: nil) }
        let future = promise.futureResult
        try await withTimeout(timeout, what: "the TLS handshake") { try await future.get() }
    }

    private struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    private func upgrade() async throws {
        let (events, continuation) = AsyncStream<TransportEvent>.makeStream()
        let connection = WebSocketTransport(logger: logger).open(url: url, headers: credential.headers) { continuation.yield($0) }
        defer { connection.close(code: 1000, reason: "parley doctor") }
        try await withTimeout(timeout + 5, what: "the WebSocket upgrade") {
            for await event in events {
                switch event {
                case .opened: return
                case .closed(let reason): throw Refused(description: reason.reason.isEmpty ? "closed with code \(reason.code)" : reason.reason)
                case .frame: continue
                }
            }
            throw Refused(description: "the connection ended")
        }
    }

    /// Nil when the service answered `setupComplete`, otherwise why not.
    private func sessionSetup(_ setup: Setup) async -> CloseReason? {
        let session = LiveSession(
            configuration: LiveConfiguration(endpoint: url, credential: credential, setup: setup), logger: logger)
        session.start()
        defer { session.close() }
        let wait = timeout + 10
        do {
            return try await withTimeout(wait, what: "setupComplete") {
                for await event in session.events {
                    switch event {
                    case .setupComplete: return nil
                    case .connectionClosed(let r), .failed(let r): return r
                    default: continue
                    }
                }
                return CloseReason(code: 1006, reason: "the session ended before setupComplete")
            }
        } catch {
            return CloseReason(code: 1006, reason: "no setupComplete within \(Int(wait)) s")
        }
    }

    static func ms(since start: Double) -> String {
        let ms = (TimeSource.monotonic.now() - start) * 1000
        return ms < 10 ? String(format: "%.1f ms", ms) : "\(Int(ms.rounded())) ms"
    }

    /// A URL with any `key=` query value hidden (keys belong in headers, but a user may have pasted one).
    static func redacted(_ url: String) -> String {
        guard var u = URLComponents(string: url), let items = u.queryItems else { return url }
        u.queryItems = items.map { $0.name.lowercased().contains("key") || $0.name.lowercased().contains("token") ? URLQueryItem(name: $0.name, value: "‹redacted›") : $0 }
        return u.string ?? url
    }

    /// NIO's errors in words a user can act on.
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        if let c = error as? ChannelError, case .connectTimeout = c { return "timed out" }
        if let e = error as? SocketAddressError.UnknownHost { return e.errorDescription.lowercased() }
        if let e = error as? SocketAddressError, case .unknown = e { return "no such host" }
        if error is NIOSSLError || error is NIOSSLExtraError {
            // BoringSSL's reason is the one upper-case word in a long description.
            let text = "\(error)"
            if let r = text.range(of: #"OPENSSL_internal:[A-Z_]+"#, options: .regularExpression) {
                let reason = text[r].dropFirst("OPENSSL_internal:".count)
                return reason == "CERTIFICATE_VERIFY_FAILED" ? "the server's certificate is not trusted (\(reason))" : String(reason)
            }
            return text
        }
        if let e = error as? NIOConnectionError, let first = e.connectionErrors.first { return describe(first.error) }
        return "\(error)"
    }
}

/// Completes `promise` when the TLS handshake finishes, or fails it when the channel errors or closes first.
private final class HandshakeWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Void>
    private var done = false

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    private func finish(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? TLSUserEvent, case .handshakeCompleted = e { finish(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ChannelError.ioOnClosedChannel))
        context.fireChannelInactive()
    }
}
