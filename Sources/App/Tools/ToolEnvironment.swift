import Foundation

/// The environment tools run with: parley's own, minus every variable named like a secret (API keys, tokens,
/// passwords, credentials), so a confirmed `env` cannot hand the user's Gemini key to the model. The user can
/// let named variables through with `[tools] pass_env = [...]`.
enum ToolEnvironment {
    /// Words that mark a variable as secret when they appear in its name (split at `_`, `-` and `.`).
    static let secretWords: Set<String> = [
        "KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASS",
        "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "CREDS", "PRIVATE", "COOKIE", "SESSION",
    ]
    /// Pieces that mark a name as secret anywhere in it (e.g. `PGPASSWORD`, `GITHUBTOKEN`).
    static let secretFragments = ["API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"]

    /// Whether a variable name looks like it holds a secret.
    static func looksSecret(_ name: String) -> Bool {
        let upper = name.uppercased()
        if secretFragments.contains(where: { upper.contains($0) }) { return true }
        return upper.split(whereSeparator: { "_-.".contains($0) }).contains { secretWords.contains(String($0)) }
    }

    /// `environment` without secret-looking variables, except those named in `passing`.
    static func clean(_ environment: [String: String] = ProcessInfo.processInfo.environment, passing: [String] = []) -> [String: String] {
        let allowed = Set(passing)
        return environment.filter { allowed.contains($0.key) || !looksSecret($0.key) }
    }

    /// `KEY=value` strings for `posix_spawn`'s envp.
    static func entries(_ environment: [String: String]) -> [String] {
        environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}
