import Conversation
import Live
import ParleyLock

/// Runs the calls of each `toolCall` concurrently and answers them together, by id. A call the server cancels
/// is stopped and never answered; the others of its message still are, so the model is never left waiting.
/// Tools that need the user's approval ask `confirm` first; a refusal answers with an error the model can explain.
final class ToolRunner: Sendable {
    private let registry: ToolRegistry
    private let policy: ToolCallPolicy
    private let state = Locked<(tasks: [String: Task<(FunctionResponse, ToolOutcome), Never>], cancelled: Set<String>)>(([:], []))

    init(registry: ToolRegistry, policy: ToolCallPolicy = .blocking) {
        self.registry = registry
        self.policy = policy
    }

    /// Starts the calls; `finished` reports each one as it ends, `respond` gets the answers of one message.
    /// NON_BLOCKING calls are answered each on its own as it ends, with their `scheduling`, and their partial
    /// results go out at once with `willContinue`; `partial` reports every partial result (for the log).
    func run(
        _ calls: [FunctionCall], confirm: @escaping @Sendable (FunctionCall, String) async -> Bool,
        finished: @escaping @Sendable (FunctionResponse, ToolOutcome) -> Void,
        partial: @escaping @Sendable (FunctionResponse) -> Void = { _ in },
        respond: @escaping @Sendable ([FunctionResponse]) -> Void
    ) {
        let registry = self.registry
        let policy = self.policy
        let tasks = calls.map { call in
            Task { () -> (FunctionResponse, ToolOutcome) in
                let scheduling = policy.responseScheduling(of: call.name)
                if let text = registry.confirmation(for: call), await !confirm(call, text) {
                    return (FunctionResponse(id: call.id, name: call.name, response: ["error": "the user declined to run this"], scheduling: scheduling), .denied)
                }
                let answers = await registry.answer([call]) { call, value in
                    let r = FunctionResponse(id: call.id, name: call.name, response: value, scheduling: scheduling, willContinue: true)
                    partial(r)
                    if scheduling != nil { respond([r]) }
                }
                var r = answers.first ?? FunctionResponse(id: call.id, name: call.name, response: ["error": "no answer"])
                r.scheduling = scheduling
                return (r, r.response["error"] == nil ? .ok : .error)
            }
        }
        state.withLock { s in
            for (call, task) in zip(calls, tasks) { s.tasks[call.id] = task }
        }
        Task {
            await withTaskGroup(of: (Int, FunctionResponse, ToolOutcome).self) { group in
                for (i, task) in tasks.enumerated() {
                    group.addTask {
                        let (answer, outcome) = await task.value
                        return (i, answer, outcome)
                    }
                }
                var together: [(Int, FunctionResponse)] = []
                for await (i, answer, outcome) in group {
                    let cancelled = state.withLock { s -> Bool in
                        s.tasks[calls[i].id] = nil
                        return s.cancelled.remove(calls[i].id) != nil
                    }
                    if cancelled { continue }
                    finished(answer, outcome)
                    if answer.scheduling != nil { respond([answer]) } else { together.append((i, answer)) }
                }
                if !together.isEmpty { respond(together.sorted { $0.0 < $1.0 }.map(\.1)) }
            }
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
