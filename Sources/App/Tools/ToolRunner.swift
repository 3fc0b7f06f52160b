import Live
import Synchronization

/// How one call ended.
enum ToolOutcome: Sendable, Equatable { case ok, error, denied }

/// Runs the calls of each `toolCall` concurrently and answers them together, by id. A call the server cancels
/// is stopped and never answered; the others of its message still are, so the model is never left waiting.
/// Tools that need the user's approval ask `confirm` first; a refusal answers with an error the model can explain.
final class ToolRunner: Sendable {
    private let registry: ToolRegistry
    private let state = Mutex<(tasks: [String: Task<(FunctionResponse, ToolOutcome), Never>], cancelled: Set<String>)>(([:], []))

    init(registry: ToolRegistry) { self.registry = registry }

    /// Starts the calls; `finished` reports each one as it ends, `respond` gets the answers of one message.
    func run(
        _ calls: [FunctionCall], confirm: @escaping @Sendable (FunctionCall, String) async -> Bool,
        finished: @escaping @Sendable (FunctionResponse, ToolOutcome) -> Void,
        respond: @escaping @Sendable ([FunctionResponse]) -> Void
    ) {
        let registry = self.registry
        let tasks = calls.map { call in
            Task { () -> (FunctionResponse, ToolOutcome) in
                if let text = registry.confirmation(for: call), await !confirm(call, text) {
                    return (FunctionResponse(id: call.id, name: call.name, response: ["error": "the user declined to run this"]), .denied)
                }
                let r = await registry.answer([call]).first ?? FunctionResponse(id: call.id, name: call.name, response: ["error": "no answer"])
                return (r, r.response["error"] == nil ? .ok : .error)
            }
        }
        state.withLock { s in
            for (call, task) in zip(calls, tasks) { s.tasks[call.id] = task }
        }
        Task {
            var answers: [FunctionResponse] = []
            for (call, task) in zip(calls, tasks) {
                let (answer, outcome) = await task.value
                let cancelled = state.withLock { s -> Bool in
                    s.tasks[call.id] = nil
                    return s.cancelled.remove(call.id) != nil
                }
                if !cancelled {
                    finished(answer, outcome)
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
