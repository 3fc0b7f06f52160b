#if canImport(Glibc)
import Glibc
#endif

/// Spawn attributes for children that must start clean: an empty signal mask (Swift's worker threads block
/// nearly every signal, and `posix_spawn` copies the caller's mask) and default dispositions (parley may
/// ignore SIGPIPE). Without this a child cannot be stopped with SIGTERM, and `yes | head` never ends.
public enum SpawnAttributes {
    /// Initialises `attributes` with clean signals plus `flags`; destroy it with `posix_spawnattr_destroy`.
    public static func clean(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
        posix_spawnattr_init(&attributes)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }
}
