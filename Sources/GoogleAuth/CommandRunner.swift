import Foundation
import ParleySpawn

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command (a token command, gcloud) with a timeout and collects its output (through ParleySpawn's
/// `CommandRun`), on a worker thread.
public enum CommandRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var timedOut: Bool
    }

    static let maxOutput = 1 << 20

    /// `argv[0]` is looked up on PATH. Runs on a worker thread; the caller's task only waits.
    public static func run(_ argv: [String], environment: [String: String]? = nil, timeout: Double) async throws(CredentialSpawnError) -> Result {
        let outcome = await withCheckedContinuation { (c: CheckedContinuation<Swift.Result<Result, CredentialSpawnError>, Never>) in
            Thread.detachNewThread {
                c.resume(returning: Swift.Result { () throws(CredentialSpawnError) -> Result in
                    try runBlocking(argv, environment: environment, timeout: timeout)
                })
            }
        }
        return try outcome.get()
    }

    static func runBlocking(_ argv: [String], environment: [String: String]?, timeout: Double) throws(CredentialSpawnError) -> Result {
        do {
            let o = try CommandRun.run(argv, environment: environment, timeout: timeout, maxOutput: maxOutput)
            return Result(status: o.status, stdout: o.stdout, stderr: String(decoding: o.stderr, as: UTF8.self), timedOut: o.timedOut)
        } catch {
            throw CredentialSpawnError(command: error.command, errno: error.errno)
        }
    }

    /// The full path of `tool` on `PATH`, or nil.
    public static func which(_ tool: String, environment: [String: String]) -> String? {
        for dir in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            let path = "\(dir)/\(tool)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }
}

/// A command could not be started.
public struct CredentialSpawnError: Error, Sendable, CustomStringConvertible {
    public var command: String
    public var errno: Int32
    public var description: String { "cannot run \(command): \(String(cString: strerror(errno)))" }
}
