import Synchronization

/// A value behind a `Mutex`, in a class so it can be shared by reference between threads.
final class LockedState<Value: ~Copyable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: consuming sending Value) { mutex = Mutex(value) }

    @inline(__always)
    func withLock<R, E: Error>(_ body: (inout sending Value) throws(E) -> sending R) throws(E) -> sending R {
        try mutex.withLock(body)
    }
}
