import Live
import Synchronization

/// Runs the calls of each `toolCall` concurrently and answers them together, by id. A call the server cancels
/// is stopped and never answered; the others of its message still are, so the model is never left waiting.
final class ToolRunner: Sendable {
    private let registry: ToolRegistry
    private let state = Mutex<(tasks: [String: Task<FunctionResponse, Never>], cancelled: Set<String>)>(([:], []))

    init(registry: ToolRegistry) { self.registry = registry }

    /// Starts the calls; `finished` reports each one as it ends, `respond` gets the answers of one message.
    func run(
        _ calls: [FunctionCall], finished: @escaping @Sendable (FunctionResponse) -> Void,
        respond: @escaping @Sendable ([FunctionResponse]) -> Void
    ) {
        let registry = self.registry
        let tasks = calls.map { call in
            Task { await registry.answer([call]).first ?? FunctionResponse(id: call.id, name: call.name, response: ["error": "no answer"]) }
        }
        state.withLock { s in
            for (call, task) in zip(calls, tasks) { s.tasks[call.id] = task }
        }
        Task {
            var answers: [FunctionResponse] = []
            for (call, task) in zip(calls, tasks) {
                let answer = await task.value
                let cancelled = state.withLock { s -> Bool in
                    s.tasks[call.id] = nil
                    return s.cancelled.remove(call.id) != nil
                }
                if !cancelled {
                    finished(answer)
                    answers.append(answer)
                }
            }
            if !answers.isEmpty { respond(answers) }
        }
    }

    /// The server cancelled these calls: stop them; they get no response.
    func cancel(_ ids: [String]) {
        state.withLock { s in
            for id in ids where s.tasks[id] != nil {
                s.cancelled.insert(id)
                s.tasks[id]?.cancel()
            }
        }
    }

    func cancelAll() { cancel(state.withLock { Array($0.tasks.keys) }) }
}
