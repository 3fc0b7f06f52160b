import Foundation

/// Runs `body` in a task and waits for it on this thread, which must not be one of the concurrency pool's.
func waitFor<T>(_ body: sending @escaping () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// `waitFor` without errors.
func waitFor<T>(_ body: sending @escaping () async -> T) -> T {
    try! waitFor { () async throws -> T in await body() }
}

/// A value handed to a task by a thread that no longer touches it.
struct HandedOver<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// The result handed from the task to the waiting thread (the semaphore orders the accesses).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
