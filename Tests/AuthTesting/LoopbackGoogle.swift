import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyLock
import _CryptoExtras

/// Google's OAuth token endpoint and the GCE metadata server on loopback, as the real ones behave: the
/// service-account grant checks the JWT's RS256 signature (against a key made at run time, never committed) and
/// its claims; the refresh-token grant checks the client and the refresh token; both answer `invalid_grant`
/// otherwise; the metadata server wants `Metadata-Flavor: Google`. Tokens are short-lived when a test says so.
public final class LoopbackGoogle: Sendable {
    public static let clientEmail = "parley-test@loopback-project.iam.gserviceaccount.com"
    public static let clientID = "loopback-client.apps.googleusercontent.com"
    public static let scope = "https://www.googleapis.com/auth/cloud-platform"

    /// The service account's key, made for this run.
    public let key: _RSA.Signing.PrivateKey
    private let state = Locked(State())
    private let channel = Locked<(any Channel)?>(nil)

    struct State {
        var port = 0
        var expiresIn = 3600
        var issued: [String] = []
        var grants: [String] = []
        var refusals: [String] = []
        var metadataTokenRequests = 0
        var refreshToken = "1//loopback-refresh-token"
        var clientSecret = "loopback-client-secret"
        var revoked: Set<String> = []
        var answerMetadata = true
    }

    public init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// Starts on a free loopback port.
    @discardableResult
    public func start() async throws -> Int {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(server: self))
                }
            }
        let ch = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        let port = ch.localAddress?.port ?? 0
        channel.withLock { $0 = ch }
        state.withLock { $0.port = port }
        return port
    }

    public func stop() async {
        let ch = channel.withLock { c -> (any Channel)? in
            defer { c = nil }
            return c
        }
        try? await ch?.close()
    }

    public var port: Int { state.withLock { $0.port } }
    /// The `token_uri` for credentials files.
    public var tokenURI: String { "http://127.0.0.1:\(port)/token" }
    /// For `GCE_METADATA_HOST`.
    public var metadataHost: String { "127.0.0.1:\(port)" }

    /// Lifetime of the tokens issued from now on (`expires_in`).
    public func setTokenLifetime(_ seconds: Int) { state.withLock { $0.expiresIn = seconds } }
    /// Revokes the refresh token (the next refresh gets `invalid_grant`).
    public func revokeRefreshToken() { state.withLock { _ = $0.revoked.insert($0.refreshToken) } }
    /// The metadata server stops answering its ping.
    public func setMetadataAnswers(_ on: Bool) { state.withLock { $0.answerMetadata = on } }

    /// Access tokens issued so far, in order.
    public var issued: [String] { state.withLock { $0.issued } }
    /// The grant behind each issued token (`jwt-bearer`, `refresh_token`, `metadata`).
    public var grants: [String] { state.withLock { $0.grants } }
    /// Why requests were refused, in order.
    public var refusals: [String] { state.withLock { $0.refusals } }

    /// Whether an access token was issued here (for the simulator's bearer check).
    public func accepts(_ token: String) -> Bool { state.withLock { $0.issued.contains(token) } }

    /// A service-account key file whose `token_uri` is this endpoint.
    public func serviceAccountJSON(projectID: String? = "loopback-project", tokenURI: String? = nil) -> String {
        var object: [String: Any] = [
            "type": "service_account", "client_email": Self.clientEmail, "private_key": key.pkcs8PEMRepresentation,
            "private_key_id": "loopback-key-1", "client_id": "1234567890", "token_uri": tokenURI ?? self.tokenURI,
        ]
        if let projectID { object["project_id"] = projectID }
        return Self.json(object)
    }

    /// gcloud's authorized-user file whose `token_uri` is this endpoint.
    public func authorizedUserJSON(quotaProject: String? = nil) -> String {
        let (secret, refresh) = state.withLock { ($0.clientSecret, $0.refreshToken) }
        var object: [String: Any] = [
            "type": "authorized_user", "client_id": Self.clientID, "client_secret": secret, "refresh_token": refresh,
            "token_uri": tokenURI,
        ]
        if let quotaProject { object["quota_project_id"] = quotaProject }
        return Self.json(object)
    }

    static func json(_ object: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: - Answers

    struct Reply {
        var status: HTTPResponseStatus
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        var body: String
    }

    func answer(method: HTTPMethod, uri: String, headers: HTTPHeaders, body: Data) -> Reply {
        let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
        if path == "/token", method == .POST { return token(Self.form(body)) }
        if path == "/" || path.hasPrefix("/computeMetadata/") { return metadata(path, headers: headers) }
        return Reply(status: .notFound, body: #"{"error":"not_found"}"#)
    }

    private func token(_ form: [String: String]) -> Reply {
        switch form["grant_type"] {
        case "urn:ietf:params:oauth:grant-type:jwt-bearer":
            if let problem = checkJWT(form["assertion"] ?? "") { return refuse(problem) }
            return issue(grant: "jwt-bearer")
        case "refresh_token":
            let (secret, refresh, revoked) = state.withLock { ($0.clientSecret, $0.refreshToken, $0.revoked) }
            guard form["client_id"] == Self.clientID, form["client_secret"] == secret else {
                return refuse("invalid_client", description: "The OAuth client was not found.", status: .unauthorized)
            }
            guard form["refresh_token"] == refresh, !revoked.contains(refresh) else { return refuse("Token has been expired or revoked.") }
            return issue(grant: "refresh_token")
        default:
            return refuse("unsupported_grant_type", description: "Invalid grant_type.", status: .badRequest)
        }
    }

    /// Nil when the JWT is one Google would take.
    private func checkJWT(_ jwt: String) -> String? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Self.jsonObject(parts[0]), let claims = Self.jsonObject(parts[1]),
            let signature = Self.base64URLDecode(parts[2])
        else { return "Invalid JWT: malformed." }
        guard header["alg"] as? String == "RS256" else { return "Invalid JWT: alg must be RS256." }
        guard key.publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8),
            padding: .insecurePKCS1v1_5)
        else { return "Invalid JWT Signature." }
        guard claims["iss"] as? String == Self.clientEmail else { return "Invalid JWT: iss is not the service account." }
        guard (claims["scope"] as? String)?.split(separator: " ").contains(Substring(Self.scope)) == true else { return "Invalid JWT: scope." }
        // google-auth (Python) always sends Google's own token URL as `aud`, whatever the file's token_uri;
        // parley sends the token_uri (the same URL in every real key file). Google takes both.
        guard let aud = claims["aud"] as? String, aud == tokenURI || aud == "https://oauth2.googleapis.com/token" else {
            return "Invalid JWT: aud must be the token endpoint."
        }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue, let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            return "Invalid JWT: iat and exp are required."
        }
        let now = Date().timeIntervalSince1970
        guard abs(iat - now) < 300 else { return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim." }
        guard exp > iat, exp - iat <= 3600 else { return "Invalid JWT: exp must be at most an hour after iat." }
        return nil
    }

    private func issue(grant: String) -> Reply {
        let (token, life) = state.withLock { s -> (String, Int) in
            let t = "ya29.loopback-\(s.issued.count + 1)-\(UInt32.random(in: 0...UInt32.max))"
            s.issued.append(t)
            s.grants.append(grant)
            return (t, s.expiresIn)
        }
        return Reply(status: .ok, body: Self.json(["access_token": token, "expires_in": life, "token_type": "Bearer"]))
    }

    private func refuse(_ description: String) -> Reply { refuse("invalid_grant", description: description, status: .badRequest) }

    private func refuse(_ error: String, description: String, status: HTTPResponseStatus) -> Reply {
        state.withLock { $0.refusals.append("\(error): \(description)") }
        return Reply(status: status, body: Self.json(["error": error, "error_description": description]))
    }

    private func metadata(_ path: String, headers: HTTPHeaders) -> Reply {
        guard state.withLock({ $0.answerMetadata }) else { return Reply(status: .serviceUnavailable, headers: [], body: "") }
        guard headers["Metadata-Flavor"].first == "Google" else {
            return Reply(status: .forbidden, headers: [("Metadata-Flavor", "Google")], body: "Missing Metadata-Flavor:Google header.")
        }
        let flavour = ("Metadata-Flavor", "Google")
        switch path {
        case "/", "/computeMetadata/v1/":
            return Reply(status: .ok, headers: [flavour, ("Content-Type", "text/plain")], body: "computeMetadata/\n")
        case "/computeMetadata/v1/project/project-id":
            return Reply(status: .ok, headers: [flavour, ("Content-Type", "text/plain")], body: "metadata-project")
        case "/computeMetadata/v1/instance/service-accounts/default/token":
            state.withLock { $0.metadataTokenRequests += 1 }
            var reply = issue(grant: "metadata")
            reply.headers.append(flavour)
            return reply
        default:
            return Reply(status: .notFound, headers: [flavour], body: "")
        }
    }

    // MARK: - Parsing

    static func form(_ body: Data) -> [String: String] {
        var out: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        return out
    }

    static func base64URLDecode(_ s: String) -> Data? {
        var b = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.count % 4 != 0 { b += "=" }
        return Data(base64Encoded: b)
    }

    static func jsonObject(_ part: String) -> [String: Any]? {
        base64URLDecode(part).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: LoopbackGoogle
        var head: HTTPRequestHead?
        var body = Data()

        init(server: LoopbackGoogle) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body = Data()
            case .body(let b): body.append(contentsOf: b.readableBytesView)
            case .end:
                guard let head else { return }
                let reply = server.answer(method: head.method, uri: head.uri, headers: head.headers, body: body)
                var headers = HTTPHeaders(reply.headers)
                headers.add(name: "Content-Length", value: "\(reply.body.utf8.count)")
                headers.add(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: reply.status, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: reply.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        }
    }
}
