import Foundation

/// A token command for tests: a shell script that counts its calls in a file and prints `tok-<n>` (or the JSON
/// form with an expiry), so tests can mint ephemeral tokens the simulator knows and see how often parley asked.
public struct CountingTokenCommand: Sendable {
    public let directory: String
    public var script: String { directory + "/token-command.sh" }
    public var countFile: String { directory + "/calls" }

    /// - Parameter json: print `{"token": …, "expires_at": now + lifetime}` instead of a bare token.
    public init(prefix: String = "auth_tokens/loopback-", json: Bool = false, lifetime: Int = 1800) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let print = json
            ? #"printf '{"token": "%s%d", "expires_at": %d}\n' "\#(prefix)" "$n" "$(( $(date +%s) + \#(lifetime) ))""#
            : #"printf '%s%d\n' "\#(prefix)" "$n""#
        let text = """
            #!/bin/sh
            n=$(( $(cat '\(countFile)' 2>/dev/null || echo 0) + 1 ))
            echo "$n" > '\(countFile)'
            \(print)
            """
        try text.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
    }

    /// How many times the command ran.
    public var calls: Int {
        Int((try? String(contentsOfFile: countFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    /// The tokens it has printed so far (`prefix1`, `prefix2`, …).
    public static func tokens(prefix: String = "auth_tokens/loopback-", upTo n: Int) -> [String] {
        n < 1 ? [] : (1...n).map { "\(prefix)\($0)" }
    }

    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
