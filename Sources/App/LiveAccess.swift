import Foundation
import GoogleAuth
import Live
import ParleyTime

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

extension Config {
    /// Vertex AI was chosen: `--vertex` or `[vertex]`, else the official SDKs' variables
    /// (`GOOGLE_GENAI_USE_ENTERPRISE` wins over `GOOGLE_GENAI_USE_VERTEXAI`, as in google-genai).
    func usesVertex(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if let enabled = vertex.enabled { return enabled }
        for name in ["GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GENAI_USE_VERTEXAI"] {
            if let v = environment[name] { return ["true", "1"].contains(v.lowercased()) }
        }
        return false
    }

    /// Everything that can be checked without the network or a command: the API key for the Gemini API. The
    /// rest (credentials files, the metadata server, token commands) is checked by ``LiveAccess/resolve``.
    func checkAccessOffline(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if usesVertex(environment: environment) || auth.tokenCommand != nil { return }
        _ = try credential(environment: environment)
    }
}

/// How parley reaches the Live service: the backend, the URL, and the credential, fixed (an API key) or
/// fetched for each connection (an access token, an ephemeral token from a token command).
struct LiveAccess: Sendable {
    var backend: LiveBackend
    /// The URL to dial; nil takes the credential's default (the Gemini API's v1beta or, for an ephemeral
    /// token, v1alpha constrained method).
    var endpoint: String?
    var credential: Credential
    var authorizer: RenewingAuthorizer?
    /// Where the credential comes from, for `parley doctor` and the log (never a value).
    var source: String
    /// Where the project came from, on Vertex AI.
    var projectFrom: String?
    /// The application default credentials found at launch (re-read before each connection that needs a token),
    /// for `parley doctor`'s check of the server tokens come from.
    var adcSource: ADCSource?

    /// Resolves the backend and the credential source; nothing is fetched yet.
    static func resolve(
        _ config: Config, environment: [String: String] = ProcessInfo.processInfo.environment, time: TimeSource = .monotonic
    ) async throws -> LiveAccess {
        let command = config.auth.tokenCommand.map { TokenCommand(command: $0, timeout: Double(config.auth.tokenTimeout)) }
        guard config.usesVertex(environment: environment) else {
            if let command {
                return LiveAccess(
                    backend: .geminiAPI, endpoint: config.endpoint, credential: .none,
                    authorizer: RenewingAuthorizer(.tokenCommand(command, bearer: false), time: time),
                    source: "the token command ([auth] token_command)")
            }
            let credential = try config.credential(environment: environment)
            return LiveAccess(
                backend: .geminiAPI, endpoint: config.endpoint, credential: credential, authorizer: nil,
                source: Self.keySource(config, environment: environment))
        }
        func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        let location = nonEmpty(config.vertex.location) ?? nonEmpty(environment["GOOGLE_CLOUD_LOCATION"]) ?? LiveBackend.defaultVertexLocation
        var project = nonEmpty(config.vertex.project).map { ($0, "--project or [vertex] project") }
            ?? nonEmpty(environment["GOOGLE_CLOUD_PROJECT"]).map { ($0, "GOOGLE_CLOUD_PROJECT") }
        let apiKey = ["GOOGLE_API_KEY", "GEMINI_API_KEY"].lazy.compactMap { nonEmpty(environment[$0]) }.first
            ?? config.apiKey.flatMap { nonEmpty($0.revealed) }
        // Express mode, as the SDKs do it: an API key and no project.
        if project == nil, command == nil, let apiKey {
            let backend = LiveBackend.vertexExpress
            return LiveAccess(
                backend: backend, endpoint: Self.vertexEndpoint(config.endpoint) ?? backend.defaultEndpoint(for: .apiKey(Secret(apiKey))),
                credential: .apiKey(Secret(apiKey)), authorizer: nil, source: "an API key (express mode)")
        }
        let authorizer: RenewingAuthorizer
        let source: String
        var adcSource: ADCSource?
        if let command {
            authorizer = RenewingAuthorizer(.tokenCommand(command, bearer: true), time: time)
            source = "the token command ([auth] token_command)"
            if project == nil, let p = GcloudCLI.project(environment: environment) { project = (p, "gcloud's configuration") }
        } else {
            let adc = ApplicationDefaultCredentials(environment: environment)
            let found = try await adc.resolve()
            if project == nil, let p = await adc.project(for: found) { project = (p.project, p.from) }
            authorizer = RenewingAuthorizer(.applicationDefault(adc), time: time)
            source = found.description
            adcSource = found
        }
        guard let (projectID, from) = project else {
            throw CredentialFailure(
                "no Google Cloud project for Vertex AI: none given by --project, [vertex] project or GOOGLE_CLOUD_PROJECT, and none in the credentials or gcloud's configuration",
                hint: "pass --project YOUR_PROJECT (or set GOOGLE_CLOUD_PROJECT, or `gcloud config set project YOUR_PROJECT`)")
        }
        let backend = LiveBackend.vertex(project: projectID, location: location)
        return LiveAccess(
            backend: backend, endpoint: Self.vertexEndpoint(config.endpoint) ?? backend.defaultEndpoint(for: .none), credential: .none,
            authorizer: authorizer, source: source, projectFrom: from, adcSource: adcSource)
    }

    /// Resolved, with a first token fetched so a broken setup fails before the conversation starts, saying why.
    static func prepared(
        _ config: Config, environment: [String: String] = ProcessInfo.processInfo.environment, time: TimeSource = .monotonic
    ) async throws -> LiveAccess {
        do {
            let access = try await resolve(config, environment: environment, time: time)
            try await access.authorizer?.prepare()
            return access
        } catch let failure as CredentialFailure {
            throw ParleyError.credential(failure)
        }
    }

    /// `--endpoint` on Vertex AI: a URL without a path is a base URL, as the SDKs' `base_url`, and gets the Live
    /// method's path; a URL with a path is dialled as it is (a proxy's own path).
    static func vertexEndpoint(_ endpoint: String?) -> String? {
        guard let endpoint, let u = URLComponents(string: endpoint) else { return endpoint }
        guard u.path.isEmpty || u.path == "/" else { return endpoint }
        return endpoint.trimmingSuffix("/") + LiveBackend.vertexPath
    }

    /// Where an API key comes from (never its value).
    static func keySource(_ config: Config, environment: [String: String]) -> String {
        for name in ["GEMINI_API_KEY", "GOOGLE_API_KEY"] where !(environment[name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            return name
        }
        if config.apiKey != nil { return "api_key in the config file" }
        return "no credential"
    }

    /// The session configuration for this access.
    func configuration(setup: Setup) -> LiveConfiguration {
        LiveConfiguration(endpoint: endpoint, credential: credential, authorizer: authorizer, setup: setup)
    }
}
