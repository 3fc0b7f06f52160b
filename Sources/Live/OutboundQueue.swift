import ParleyLock

/// The frames a connection is asked to send, from any thread, for the one task on the network thread that
/// writes them to the socket, in order.
///
/// Instead of an `AsyncStream`: its `yield` (the mic's 50 frames a second, on the audio thread) and `next` run
/// the standard library's generic code unspecialized (the waiting continuations in an array that shifts on
/// each `removeFirst`, metadata looked up at run time), and the consumer took one element a wake-up. Here a
/// push is an append under a lock and, when the writer waits, one resume; the writer takes everything queued
/// at once.
final class OutboundQueue<Element: Sendable>: Sendable {
    private struct State {
        var pending: [Element] = []
        var waiter: UnsafeContinuation<Void, Never>?
        var finished = false
    }

    private let state = Locked(State())

    init() {}

    /// Queues an element; dropped once the queue is finished (the connection is over).
    func push(_ element: Element) {
        let waiter = state.withLock { s -> UnsafeContinuation<Void, Never>? in
            guard !s.finished else { return nil }
            s.pending.append(element)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// No more elements: the writer gets what is queued, then the end. Idempotent.
    func finish() {
        let waiter = state.withLock { s -> UnsafeContinuation<Void, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Whether the writer is waiting for an element (for tests: the wait, not the queue, is what they exercise).
    var writerWaits: Bool { state.withLock { $0.waiter != nil } }

    /// Moves everything queued into `batch` (which should be empty; its storage is reused), waiting for at
    /// least one element; false once the queue is finished and empty. One consumer at a time. Cancelling the
    /// consumer does not end the wait: wrap the loop in `withTaskCancellationHandler { … } onCancel:
    /// { queue.finish() }`.
    func next(into batch: inout [Element]) async -> Bool {
        while true {
            let taken = state.withLock { s -> Bool? in
                if !s.pending.isEmpty {
                    swap(&s.pending, &batch)
                    return true
                }
                return s.finished ? false : nil
            }
            if let taken { return taken }
            await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    if !s.pending.isEmpty || s.finished { return true }
                    s.waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }
}
