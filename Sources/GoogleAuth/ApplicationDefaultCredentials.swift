import Foundation
import Live
import ParleyTime

/// Where application default credentials come from, found in google-auth's order: `GOOGLE_APPLICATION_CREDENTIALS`,
/// gcloud's ADC file, the GCE metadata server, then `gcloud auth print-access-token`.
public enum ADCSource: Sendable, CustomStringConvertible {
    /// A credentials file; `origin` says how it was found.
    case file(CredentialsFile, origin: String)
    case metadataServer(host: String)
    case gcloud(path: String)

    /// Which source and where (never a value), for `parley doctor` and the log.
    public var description: String {
        switch self {
        case .file(let f, let origin): "\(f.summary) from \(f.path) (\(origin))"
        case .metadataServer(let host): "the metadata server at \(host)"
        case .gcloud(let path): "`gcloud auth print-access-token` (\(path))"
        }
    }

    /// Where tokens are fetched from, for `parley doctor`'s endpoint check.
    public var tokenEndpoint: String {
        switch self {
        case .file(let f, _): f.tokenURI
        case .metadataServer(let host): "http://\(host)/computeMetadata/v1/instance/service-accounts/default/token"
        case .gcloud(let path): path
        }
    }

    /// A fresh access token. `wallNow` signs service-account JWTs.
    public func fetch(wallNow: Double, environment: [String: String], timeout: Double) async throws(CredentialFailure) -> AccessToken {
        switch self {
        case .file(.serviceAccount(let account), _):
            return try await OAuthExchange.serviceAccount(account, wallNow: wallNow, timeout: timeout)
        case .file(.authorizedUser(let user), _):
            return try await OAuthExchange.refresh(user, timeout: timeout)
        case .metadataServer(let host):
            return try await MetadataServer.token(host: host, timeout: timeout)
        case .gcloud(let path):
            return try await GcloudCLI.token(path, environment: environment, timeout: max(timeout, 20))
        }
    }
}

extension ADCSource {
    /// Whether the server tokens come from answers (for `parley doctor`), without asking it for a token: the
    /// token endpoint answers a GET at all (it refuses one, which is enough), the metadata server answers its
    /// ping as one. Returns what answered and in how long, or why nothing did and what to do; nil for gcloud (a
    /// command, not a server).
    public func reachability(timeout: Double) async -> Result<String, CredentialFailure>? {
        let start = TimeSource.monotonic.now()
        func took() -> String { "\(Int(((TimeSource.monotonic.now() - start) * 1000).rounded())) ms" }
        switch self {
        case .file(let f, _):
            do {
                let r = try await HTTPFetch.request(.GET, url: f.tokenURI, timeout: timeout)
                return .success("the token endpoint \(f.tokenURI) answers (HTTP \(r.status), \(took()))")
            } catch {
                return .failure(CredentialFailure(
                    "the token endpoint \(f.tokenURI) (token_uri in \(f.path)) does not answer: \(error)",
                    hint: "check the network path to it (proxy, firewall, VPN; `curl -sI \(f.tokenURI)`); a key file from Google names https://oauth2.googleapis.com/token"))
            }
        case .metadataServer(let host):
            let r = try? await HTTPFetch.request(.GET, url: "http://\(host)/", headers: MetadataServer.flavor, timeout: timeout)
            if let r, r.headers["metadata-flavor"] == "Google" {
                return .success("the metadata server at \(host) answers (\(took()))")
            }
            let why = r.map { "it answered HTTP \($0.status) without Metadata-Flavor: Google" } ?? "no answer within \(Int(timeout)) s"
            return .failure(CredentialFailure(
                "the metadata server at \(host) does not answer as one: \(why)",
                hint: "it answers only on Google Cloud (Compute Engine, GKE, Cloud Run); check GCE_METADATA_HOST, or elsewhere run `gcloud auth application-default login`"))
        case .gcloud:
            return nil
        }
    }
}

/// Finds application default credentials and the project, as google-auth does.
public struct ApplicationDefaultCredentials: Sendable {
    public var environment: [String: String]
    /// How long the metadata server may take to answer its ping (google-auth waits 3 s).
    public var metadataTimeout: Double

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, metadataTimeout: Double = 3) {
        self.environment = environment
        self.metadataTimeout = metadataTimeout
    }

    /// gcloud's ADC file (`gcloud auth application-default login` writes it).
    public var gcloudADCFile: String { GcloudCLI.configDirectory(environment: environment) + "/application_default_credentials.json" }

    /// The first source that is there. A file that is named or present but broken is an error (google-auth
    /// does not fall through either); no source at all lists what was tried.
    public func resolve() async throws(CredentialFailure) -> ADCSource {
        var tried: [String] = []
        if let path = environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty {
            return .file(try CredentialsFile.load(path, origin: "GOOGLE_APPLICATION_CREDENTIALS"), origin: "GOOGLE_APPLICATION_CREDENTIALS")
        }
        tried.append("GOOGLE_APPLICATION_CREDENTIALS (not set)")
        let adc = gcloudADCFile
        if FileManager.default.fileExists(atPath: adc) {
            return .file(try CredentialsFile.load(adc, origin: "gcloud's application default credentials"), origin: "gcloud's application default credentials")
        }
        tried.append("\(adc) (no such file)")
        let host = MetadataServer.host(environment: environment)
        if await MetadataServer.ping(host: host, timeout: metadataTimeout) { return .metadataServer(host: host) }
        tried.append("the metadata server at \(host) (no answer within \(Int(metadataTimeout)) s)")
        if let gcloud = CommandRunner.which("gcloud", environment: environment) { return .gcloud(path: gcloud) }
        tried.append("gcloud (not on PATH)")
        throw CredentialFailure(
            "no Google Cloud credentials found; tried \(tried.joined(separator: ", "))",
            hint: "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, or use an API key (Vertex AI express mode)")
    }

    /// The project for a source when neither the flag nor the variables give one: the credentials file, then
    /// gcloud's configuration, then the metadata server.
    public func project(for source: ADCSource) async -> (project: String, from: String)? {
        if case .file(let f, _) = source, let p = f.projectID { return (p, f.path) }
        if let p = GcloudCLI.project(environment: environment) { return (p, "gcloud's configuration") }
        if case .metadataServer(let host) = source, let p = await MetadataServer.project(host: host, timeout: metadataTimeout) {
            return (p, "the metadata server")
        }
        return nil
    }
}
