import Glibc
import Synchronization

/// A value behind a lock that ThreadSanitizer understands: what parley uses instead of a bare
/// `Synchronization.Mutex`.
///
/// On Linux, `Mutex`'s contended paths (`_lockSlow`, `_unlockSlow`) hand the lock over in the kernel
/// (`FUTEX_LOCK_PI`) inside libswiftSynchronization, which is not built with ThreadSanitizer: TSan sees no
/// happens-before edge between two threads that took turns on a contended lock and reports the value as raced
/// (a Swift access race inside `withLock`). Two threads adding 200,000 times each under a `Mutex`: total exactly
/// 400,000 and a report in 3 runs of 3; under this type, 0 in 3 — and a real race still reported.
/// So the critical section tells TSan itself: `__tsan_acquire` after locking and `__tsan_release` before
/// unlocking, on the lock's address (a mutex's own semantics). The hooks are looked up once at run time and
/// exist only in a TSan build; elsewhere they are nil and the lock is `Mutex` with two untaken branches
/// (`PARLEY_BENCH=1 swift test -c release --filter LockBenchmarkTests`: as fast as `Mutex`; a pthread mutex
/// was 2–3 times slower here).
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value while holding the lock (not reentrant: `body` must not take it again).
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let hooks = TSanHooks.shared
        guard let acquire = hooks.acquire, let release = hooks.release else { return try mutex.withLock(body) }
        let address = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            acquire(address)
            defer { release(address) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's annotation entry points, when the process runs under it.
@usableFromInline
struct TSanHooks: Sendable {
    @usableFromInline typealias Sync = @convention(c) (UnsafeMutableRawPointer?) -> Void
    @usableFromInline let acquire: Sync?
    @usableFromInline let release: Sync?

    @usableFromInline static let shared = TSanHooks()

    init() {
        func find(_ name: String) -> Sync? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Sync.self) }
        }
        acquire = find("__tsan_acquire")
        release = find("__tsan_release")
    }
}
