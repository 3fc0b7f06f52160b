/// Gets the credential for each connection, for credentials that change over a conversation: OAuth access
/// tokens from application default credentials (refreshed ahead of expiry), ephemeral tokens from a token
/// command (one per new session). The session asks before it opens each connection.
public protocol ConnectionAuthorizer: Sendable {
    /// The credential for the next connection. `newSession` is false for a resume with a handle: a token that
    /// has not expired still covers it (resuming does not use up an ephemeral token), while a new session needs
    /// a fresh single-use token. Errors are ``CredentialFailure``s.
    func credential(newSession: Bool) async throws -> Credential

    /// The service refused the credential in use as spent or expired: it is never sent again.
    func discard()

    /// Whether a refused credential can be replaced by a new one (a token command, application default
    /// credentials); when false a credential close ends the session.
    var canRenew: Bool { get }
}

/// Why no credential could be had for a connection: what went wrong and what to do, never a secret.
public struct CredentialFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var hint: String

    public init(_ message: String, hint: String) {
        self.message = message
        self.hint = hint
    }

    public var description: String { "\(message) — \(hint)" }
}
