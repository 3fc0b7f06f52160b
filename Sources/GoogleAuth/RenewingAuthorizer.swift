import Foundation
import Live
import ParleyTime
import ParleyLock

/// The ``ConnectionAuthorizer`` for credentials that must be fetched: application default credentials
/// (access tokens refreshed ahead of expiry, as google-auth does 3 min 45 s early) or a token command (one
/// ephemeral token per new session; a resume reuses the token while it lasts). Sources are re-read before each
/// connection that needs a new token, so a rotated key or a new login is picked up without a restart.
public final class RenewingAuthorizer: ConnectionAuthorizer {
    public enum Source: Sendable {
        /// Application default credentials: tokens go out as `Authorization: Bearer`.
        case applicationDefault(ApplicationDefaultCredentials)
        /// A token command; `bearer` sends its tokens as OAuth bearer tokens (Vertex AI) rather than as API
        /// keys or ephemeral tokens (`auth_tokens/…`).
        case tokenCommand(TokenCommand, bearer: Bool)
    }

    /// google-auth's refresh threshold.
    public static let refreshMargin = 225.0
    /// A token command's token within this of its expiry is not used for a resume.
    public static let commandMargin = 10.0

    let source: Source
    let time: TimeSource
    let wall: @Sendable () -> Double
    let timeout: Double
    private let state = Locked(Held())

    struct Held {
        var token: Secret?
        /// On `time`; nil: unknown (fetched again for each connection).
        var expiresAt: Double?
        /// Fetched but not yet handed to a connection (a single-use token still unspent).
        var unused = false
        var lastSource: String?
        var fetches = 0
    }

    /// - Parameters:
    ///   - time: the clock expiry is measured on (the session's).
    ///   - wall: wall-clock seconds since 1970, for JWT `iat` and a token command's `expires_at`.
    ///   - timeout: how long a token endpoint or the metadata server may take.
    public init(
        _ source: Source, time: TimeSource = .monotonic, wall: @escaping @Sendable () -> Double = { TimeSource.wallSeconds() },
        timeout: Double = 10
    ) {
        self.source = source
        self.time = time
        self.wall = wall
        self.timeout = timeout
    }

    public var canRenew: Bool { true }

    public func discard() {
        state.withLock {
            $0.token = nil
            $0.expiresAt = nil
            $0.unused = false
        }
    }

    /// When the token in hand expires, in seconds from now (nil: none held or unknown).
    public var expiresIn: Double? {
        let now = time.now()
        return state.withLock { s in s.expiresAt.map { $0 - now } }
    }

    /// How many tokens were fetched so far.
    public var fetches: Int { state.withLock { $0.fetches } }

    /// Where the last token came from (never its value).
    public var lastSource: String? { state.withLock { $0.lastSource } }

    public func credential(newSession: Bool) async throws -> Credential {
        let token = try await token(newSession: newSession)
        switch source {
        case .applicationDefault, .tokenCommand(_, bearer: true): return .bearer(token)
        case .tokenCommand(_, bearer: false): return Credential(token.revealed)
        }
    }

    /// The token for the next connection, fetched only when the one in hand does not do.
    public func token(newSession: Bool) async throws(CredentialFailure) -> Secret {
        let now = time.now()
        let reuse: Secret? = state.withLock { s in
            guard let token = s.token else { return nil }
            let usable: Bool
            switch source {
            case .applicationDefault:
                // A token of unknown lifetime (gcloud's) is fetched again for each connection.
                usable = now < (s.expiresAt ?? (s.unused ? .infinity : -.infinity)) - Self.refreshMargin
            case .tokenCommand:
                // A new session spends a single-use token; a resume does not.
                usable = now < (s.expiresAt ?? .infinity) - Self.commandMargin && (!newSession || s.unused)
            }
            guard usable else { return nil }
            s.unused = false
            return token
        }
        if let reuse { return reuse }
        let environment: [String: String]
        let fetched: (Secret, Double?, String)
        switch source {
        case .applicationDefault(let adc):
            environment = adc.environment
            let where_ = try await adc.resolve()
            let t = try await where_.fetch(wallNow: wall(), environment: environment, timeout: timeout)
            fetched = (t.token, t.expiresIn.map { now + $0 }, where_.description)
        case .tokenCommand(let command, _):
            environment = ProcessInfo.processInfo.environment
            let out = try await command.run(environment: environment)
            fetched = (out.token, out.expiresAt.map { now + ($0 - wall()) }, "the token command")
        }
        state.withLock { s in
            s.token = fetched.0
            s.expiresAt = fetched.1
            s.unused = false
            s.lastSource = fetched.2
            s.fetches += 1
        }
        return fetched.0
    }

    /// Fetches a token ahead of the first connection (so a broken setup fails at launch, with its message);
    /// the first connection then uses it.
    public func prepare() async throws(CredentialFailure) {
        _ = try await token(newSession: true)
        state.withLock { $0.unused = true }
    }
}
