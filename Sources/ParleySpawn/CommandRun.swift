import Foundation

#if canImport(Glibc)
import Glibc
import ParleyTime
#endif

/// A command run to completion with a timeout, its output collected: spawned with clean signals in its own
/// process group, so a command that hangs is killed with everything it started.
public enum CommandRun {
    public struct Output: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
        public var timedOut: Bool
    }

    /// `argv[0]` is looked up on PATH; stdin is /dev/null. Each stream keeps at most `maxOutput` bytes (the
    /// rest is read and dropped, so the command never blocks on a full pipe). Blocks the calling thread.
    public static func run(_ argv: [String], environment: [String: String]? = nil, timeout: Double,
                           maxOutput: Int = .max) throws(SpawnFailure) -> Output {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0 else { throw SpawnFailure(command: argv[0], errno: errno) }
        guard pipe(&err) == 0 else {
            close(out[0]); close(out[1])
            throw SpawnFailure(command: argv[0], errno: errno)
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
            throw SpawnFailure(command: argv[0], errno: rc)
        }
        var stdout = Data(), stderr = Data()
        var open = [out[0]: true, err[0]: true]
        let deadline = TimeSource.monotonicSeconds() + timeout
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.values.contains(true) {
            let left = deadline - TimeSource.monotonicSeconds()
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
                    if stdout.count < maxOutput { stdout.append(contentsOf: buffer[0..<min(n, maxOutput - stdout.count)]) }
                } else if stderr.count < maxOutput {
                    stderr.append(contentsOf: buffer[0..<min(n, maxOutput - stderr.count)])
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
        return Output(status: code, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }
}

/// A command could not be started.
public struct SpawnFailure: Error, Sendable, CustomStringConvertible {
    public var command: String
    public var errno: Int32
    public init(command: String, errno: Int32) {
        self.command = command
        self.errno = errno
    }
    public var description: String { "cannot run \(command): \(String(cString: strerror(errno)))" }
}
