import Foundation
import ParleySpawn

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command (a token command, gcloud) with a timeout and collects its output. Spawned with clean
/// signals in its own process group, so a command that hangs is killed with everything it started.
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
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0 else { throw CredentialSpawnError(command: argv[0], errno: errno) }
        guard pipe(&err) == 0 else {
            close(out[0]); close(out[1])
            throw CredentialSpawnError(command: argv[0], errno: errno)
        }
        // Only the dup2'd copies reach the child.
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes, flags: Int32(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        defer { posix_spawnattr_destroy(&attributes) }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, &cArgs, &cEnv)
        close(out[1])
        close(err[1])
        guard rc == 0 else {
            close(out[0]); close(err[0])
            throw CredentialSpawnError(command: argv[0], errno: rc)
        }
        var stdout = Data(), stderr = Data()
        var open = [out[0]: true, err[0]: true]
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 16384)
        while open.values.contains(true) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 {
                timedOut = true
                break
            }
            var fds = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000) + 1)
            if ready < 0, errno != EINTR { break }
            for f in fds where f.revents != 0 {
                let n = read(f.fd, &buffer, buffer.count)
                if n <= 0 {
                    open[f.fd] = false
                } else if f.fd == out[0] {
                    if stdout.count < maxOutput { stdout.append(contentsOf: buffer[0..<n]) }
                } else if stderr.count < maxOutput {
                    stderr.append(contentsOf: buffer[0..<n])
                }
            }
        }
        close(out[0])
        close(err[0])
        var status: Int32 = 0
        if timedOut {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        } else {
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: code, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self), timedOut: timedOut)
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
