#if canImport(Glibc)
import Glibc
#endif

/// Spawn attributes for children that must start clean: an empty signal mask (Swift's worker threads block
/// nearly every signal, and `posix_spawn` copies the caller's mask) and default dispositions (parley may
/// ignore SIGPIPE). Without this a child cannot be stopped with SIGTERM, and `yes | head` never ends.
public enum SpawnAttributes {
    /// Initialises `attributes` with clean signals plus `flags`; destroy it with `posix_spawnattr_destroy`.
    /// Also marks every descriptor above stderr close-on-exec (see `closeInheritedDescriptorsOnExec`), since
    /// every spawn starts here.
    public static func clean(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
        closeInheritedDescriptorsOnExec()
        posix_spawnattr_init(&attributes)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    /// Marks every open descriptor above stderr close-on-exec, so a child gets only what its spawn actions
    /// give it: not the simulator's listening socket, the WebSocket, the sound server's socket or another
    /// child's pipes (NIO and libpulse do not all set the flag). Descriptors parley opens after this and
    /// before the spawn, on other threads, are the only ones that can slip through.
    public static func closeInheritedDescriptorsOnExec() {
        var fds: [Int32] = []
        if let dir = opendir("/proc/self/fd") {
            let own = dirfd(dir)
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if let fd = Int32(name), fd > 2, fd != own { fds.append(fd) }
            }
            closedir(dir)
        } else {
            fds = Array(3..<Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 4096)))
        }
        for fd in fds {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
