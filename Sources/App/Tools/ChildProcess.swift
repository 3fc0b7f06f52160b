import Foundation
import ParleyTime
import ParleySpawn
import ParleyLock

#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn` and clean signals (see `SpawnAttributes`), its stdin and stdout on pipes
/// and its stderr on /dev/null, in its own session so it and everything it starts can be killed together.
/// Foundation's `Process` copies the caller's signal mask (most signals blocked on a Swift worker thread), so a
/// child it starts ignores SIGTERM and outlives parley.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// parley writes the child's stdin here.
    let toChild: Int32
    /// parley reads the child's stdout here.
    let fromChild: Int32
    private let status = Locked<Int32?>(nil)

    struct SpawnFailed: Error, CustomStringConvertible {
        var command: String
        var errno: Int32
        var description: String { "cannot start \(command): \(String(cString: strerror(errno)))" }
    }

    /// Starts `/usr/bin/env command args…` (so `command` is looked up in PATH) with `environment`.
    init(command: String, args: [String], environment: [String: String]) throws {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw SpawnFailed(command: command, errno: errno) }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            throw SpawnFailed(command: command, errno: errno)
        }
        for fd in [input[1], output[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, input[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes, flags: 0x80)  // POSIX_SPAWN_SETSID (glibc), not imported into Swift
        defer { posix_spawnattr_destroy(&attributes) }
        let words = ["/usr/bin/env", command] + args
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?] = ToolEnvironment.entries(environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, &argv, &envp)
        close(input[0])
        close(output[1])
        guard rc == 0 else {
            close(input[1]); close(output[0])
            throw SpawnFailed(command: command, errno: rc)
        }
        pid = child
        toChild = input[1]
        fromChild = output[0]
    }

    /// The wait status once the child has ended (reaped here), nil while it runs.
    var exitStatus: Int32? {
        status.withLock { s in
            if s == nil {
                var st: Int32 = 0
                if waitpid(pid, &st, WNOHANG) == pid { s = st }
            }
            return s
        }
    }

    var isRunning: Bool { exitStatus == nil }

    /// SIGTERM to the child's whole session (its process group), then SIGKILL if it has not ended within
    /// `grace` seconds; reaps it.
    func terminate(grace: Double = 0.5) {
        guard isRunning else { return }
        kill(-pid, SIGTERM)
        kill(pid, SIGTERM)
        let end = TimeSource.monotonic.now() + grace
        while isRunning && TimeSource.monotonic.now() < end { usleep(10_000) }
        if isRunning {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            while isRunning { usleep(5_000) }
        }
    }

    deinit {
        close(toChild)
        close(fromChild)
    }
}
