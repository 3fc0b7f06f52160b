import NIOCore
import NIOPosix

/// Swift-concurrency jobs and timers on NIO's event loop, the thread the WebSocket already lives on.
///
/// The connection's tasks (reading frames, writing them, the session's timers, the app's event pump) prefer
/// this executor, so a frame goes from the socket to the session, and from the mic to the socket, without
/// hopping through the global concurrent pool, and the pool's threads are not kept awake by a conversation
/// (libdispatch retires them after a few idle seconds). Nothing run here may block: it is the network thread.
public final class NetworkExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor on the shared event loop group's first loop. Created on first use: call
    /// `NIOSingletons.groupLoopCountSuggestion` (if at all) before.
    public static let shared = NetworkExecutor(loop: NIOSingletons.posixEventLoopGroup.next())

    /// The event loop the jobs run on.
    public let loop: any EventLoop

    public init(loop: any EventLoop) { self.loop = loop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` on the loop after `seconds`; cancel the result to call it off.
    @discardableResult
    public func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: .nanoseconds(Int64(max(0, seconds) * 1e9))) { body() }
    }

    /// Runs `body` on the loop now and then every `seconds` until it returns false or the task is cancelled.
    @discardableResult
    public func repeatEvery(_ seconds: Double, _ body: @escaping @Sendable () -> Bool) -> RepeatedTask {
        loop.scheduleRepeatedTask(initialDelay: .zero, delay: .nanoseconds(Int64(seconds * 1e9))) { task in
            if !body() { task.cancel() }
        }
    }
}
