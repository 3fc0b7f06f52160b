import ParleyLock

/// Tool calls waiting for the user's yes or no: the runner awaits an answer the main loop gives later.
final class Confirmations: Sendable {
    private let waiting = Locked<[String: CheckedContinuation<Bool, Never>]>([:])

    /// Asks (through `show`) and waits for the answer to call `id`.
    func ask(_ id: String, show: @Sendable () -> Void) async -> Bool {
        await withCheckedContinuation { c in
            waiting.withLock { $0[id] = c }
            show()
        }
    }

    func answer(_ id: String, yes: Bool) {
        waiting.withLock { $0.removeValue(forKey: id) }?.resume(returning: yes)
    }

    func answerAll(yes: Bool) {
        for c in waiting.withLock({ w in defer { w.removeAll() }; return Array(w.values) }) { c.resume(returning: yes) }
    }
}
