import Foundation
import Live

/// An access token and how long it lives, as a token endpoint answers (`expires_in`), or nil when unknown.
public struct AccessToken: Sendable {
    public var token: Secret
    /// Seconds from when it was issued; nil when the source does not say (it is then fetched for each connection).
    public var expiresIn: Double?

    public init(token: Secret, expiresIn: Double?) {
        self.token = token
        self.expiresIn = expiresIn
    }

    /// Parses an OAuth 2 token response (`access_token`, `expires_in`) or its error (`error`,
    /// `error_description`), naming `what` (a file or the metadata server) in errors.
    static func parse(_ response: HTTPFetch.Response, what: String, invalidGrantHint: String) throws(CredentialFailure) -> AccessToken {
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        guard response.status == 200 else {
            let error = object?["error"] as? String
            let detail = (object?["error_description"] as? String).map { ": \(String($0.prefix(200)))" } ?? ""
            if error == "invalid_grant" {
                throw CredentialFailure("\(what) was refused by the token endpoint (invalid_grant\(detail))", hint: invalidGrantHint)
            }
            throw CredentialFailure(
                "the token endpoint answered HTTP \(response.status) for \(what)\(error.map { " (\($0)\(detail))" } ?? "")",
                hint: "check the credentials and the token_uri; parley retries on the next connection")
        }
        guard let token = object?["access_token"] as? String, !token.isEmpty else {
            throw CredentialFailure("the token endpoint's answer for \(what) has no access_token", hint: "check the token_uri")
        }
        let expires = (object?["expires_in"] as? NSNumber)?.doubleValue ?? (object?["expires_in"] as? String).flatMap(Double.init)
        return AccessToken(token: Secret(token), expiresIn: expires)
    }
}

/// Exchanges credentials-file contents for access tokens at the file's `token_uri`.
enum OAuthExchange {
    static func serviceAccount(_ account: CredentialsFile.ServiceAccount, wallNow: Double, timeout: Double) async throws(CredentialFailure) -> AccessToken {
        let assertion = try ServiceAccountJWT.assertion(account, now: wallNow)
        let body = form(["grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion.revealed])
        let response = try await post(account.tokenURI, body: body, timeout: timeout, what: account.path)
        return try AccessToken.parse(
            response, what: "the service account key in \(account.path)",
            invalidGrantHint: "the key may have been deleted or the system clock is off; create a new key for \(account.clientEmail)")
    }

    static func refresh(_ user: CredentialsFile.AuthorizedUser, timeout: Double) async throws(CredentialFailure) -> AccessToken {
        let body = form([
            "grant_type": "refresh_token", "client_id": user.clientID, "client_secret": user.clientSecret.revealed,
            "refresh_token": user.refreshToken.revealed,
        ])
        let response = try await post(user.tokenURI, body: body, timeout: timeout, what: user.path)
        return try AccessToken.parse(
            response, what: "the refresh token in \(user.path)",
            invalidGrantHint: "it was revoked or has expired: run `gcloud auth application-default login` again")
    }

    static func post(_ url: String, body: Data, timeout: Double, what: String) async throws(CredentialFailure) -> HTTPFetch.Response {
        do {
            return try await HTTPFetch.request(
                .POST, url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body, timeout: timeout)
        } catch {
            throw CredentialFailure("cannot reach the token endpoint for \(what): \(error)", hint: "check the network (and token_uri in the file); parley retries on the next connection")
        }
    }

    static func form(_ fields: [String: String]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Data(fields.sorted { $0.key < $1.key }.map { k, v in
            "\(k)=\(v.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&").utf8)
    }
}

/// The GCE metadata server (Compute Engine, Cloud Run, GKE): `GCE_METADATA_HOST` when set, as google-auth
/// honours it; every request carries `Metadata-Flavor: Google`.
public enum MetadataServer {
    public static func host(environment: [String: String]) -> String {
        environment["GCE_METADATA_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "169.254.169.254"
    }

    static let flavor = [("Metadata-Flavor", "Google")]

    /// Whether a metadata server answers at `host` (google-auth's ping: the response must say it is one).
    public static func ping(host: String, timeout: Double) async -> Bool {
        guard let r = try? await HTTPFetch.request(.GET, url: "http://\(host)/", headers: flavor, timeout: timeout) else { return false }
        return r.headers["metadata-flavor"] == "Google"
    }

    static func token(host: String, timeout: Double) async throws(CredentialFailure) -> AccessToken {
        let url = "http://\(host)/computeMetadata/v1/instance/service-accounts/default/token?scopes=\(ServiceAccountJWT.scope)"
        let response: HTTPFetch.Response
        do {
            response = try await HTTPFetch.request(.GET, url: url, headers: flavor, timeout: timeout)
        } catch {
            throw CredentialFailure("the metadata server at \(host) does not answer: \(error)", hint: "parley retries on the next connection; outside Google Cloud set GOOGLE_APPLICATION_CREDENTIALS or run `gcloud auth application-default login`")
        }
        return try AccessToken.parse(response, what: "the metadata server's default service account", invalidGrantHint: "check the instance's service account and its scopes")
    }

    static func project(host: String, timeout: Double) async -> String? {
        guard let r = try? await HTTPFetch.request(.GET, url: "http://\(host)/computeMetadata/v1/project/project-id", headers: flavor, timeout: timeout),
            r.status == 200
        else { return nil }
        let p = String(decoding: r.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return p.isEmpty ? nil : p
    }
}

/// gcloud: `gcloud auth print-access-token`, and the project in its active configuration.
public enum GcloudCLI {
    static func token(_ gcloud: String, environment: [String: String], timeout: Double) async throws(CredentialFailure) -> AccessToken {
        let result: CommandRunner.Result
        do {
            result = try await CommandRunner.run([gcloud, "auth", "print-access-token"], environment: environment, timeout: timeout)
        } catch {
            throw CredentialFailure("\(error)", hint: "check the gcloud installation")
        }
        if result.timedOut { throw CredentialFailure("`gcloud auth print-access-token` did not finish within \(Int(timeout)) s", hint: "run it yourself to see what it waits for (a login prompt?)") }
        let token = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty, !token.contains(where: \.isWhitespace) else {
            let why = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines).suffix(300)
            throw CredentialFailure("`gcloud auth print-access-token` failed (status \(result.status))\(why.isEmpty ? "" : ": \(why)")", hint: "run `gcloud auth login`")
        }
        return AccessToken(token: Secret(token), expiresIn: nil)
    }

    /// gcloud's configuration directory: `$CLOUDSDK_CONFIG` or `~/.config/gcloud`.
    public static func configDirectory(environment: [String: String]) -> String {
        if let d = environment["CLOUDSDK_CONFIG"], !d.isEmpty { return d }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/gcloud"
    }

    /// The project of gcloud's active configuration (`CLOUDSDK_CORE_PROJECT`, else `[core] project` in
    /// `configurations/config_<active>`).
    public static func project(environment: [String: String]) -> String? {
        if let p = environment["CLOUDSDK_CORE_PROJECT"], !p.isEmpty { return p }
        let dir = configDirectory(environment: environment)
        let active = (try? String(contentsOfFile: dir + "/active_config", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let text = try? String(contentsOfFile: "\(dir)/configurations/config_\(active.flatMap { $0.isEmpty ? nil : $0 } ?? "default")", encoding: .utf8)
        else { return nil }
        var section = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { section = line; continue }
            guard section == "[core]", let eq = line.firstIndex(of: "=") else { continue }
            if line[..<eq].trimmingCharacters(in: .whitespaces) == "project" {
                let p = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                return p.isEmpty ? nil : p
            }
        }
        return nil
    }
}
