import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request on swift-nio (TLS through swift-nio-ssl with the system trust store, or
/// `SSL_CERT_FILE`), for the token endpoint and the metadata server: a small request function instead of a
/// second HTTP stack in the binary.
public enum HTTPFetch {
    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data
    }

    /// Why a request got no response; the URL's host and port only (token URLs carry no secrets, bodies might).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    static let maxBody = 1 << 20

    public static func request(
        _ method: HTTPMethod, url: String, headers: [(String, String)] = [], body: Data? = nil, timeout: Double
    ) async throws(Failure) -> Response {
        guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let rawHost = u.host, !rawHost.isEmpty
        else { throw Failure(description: "\(url) is not an http:// or https:// URL") }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let secure = scheme == "https"
        let port = u.port ?? (secure ? 443 : 80)
        var target = u.percentEncodedPath.isEmpty ? "/" : u.percentEncodedPath
        if let q = u.percentEncodedQuery { target += "?" + q }
        let place = "\(rawHost):\(port)"

        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let promise = loop.makePromise(of: Response.self)
        let tls: NIOSSLContext?
        if secure {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { configuration.trustRoots = .file(file) }
            do { tls = try NIOSSLContext(configuration: configuration) } catch {
                throw Failure(description: "cannot set up TLS for \(place): \(error)")
            }
        } else {
            tls = nil
        }
        let serverName: String? = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(ResponseCollector(promise: promise))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            promise.fail(error)
            throw Failure(description: "cannot connect to \(place): \(Self.describe(error))")
        }
        let timer = loop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
            promise.fail(Failure(description: "\(place) did not answer within \(Int(timeout)) s"))
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: u.port.map { "\(rawHost):\($0)" } ?? rawHost)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "User-Agent", value: "parley")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: "\(body.count)") }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let e as Failure {
            throw e
        } catch {
            throw Failure(description: "\(place): \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? NIOConnectionError { return e.connectionErrors.first.map { "\($0.error)" } ?? "connection failed" }
        return "\(error)"
    }

    final class ResponseCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<Response>
        var status = 0
        var headers: [String: String] = [:]
        var body = Data()

        init(promise: EventLoopPromise<Response>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                for h in head.headers { headers[h.name.lowercased()] = h.value }
            case .body(let buffer):
                if body.count + buffer.readableBytes <= HTTPFetch.maxBody { body.append(contentsOf: buffer.readableBytesView) }
            case .end: promise.succeed(Response(status: status, headers: headers, body: body))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure(description: "the connection closed before a full response"))
            context.fireChannelInactive()
        }
    }
}
