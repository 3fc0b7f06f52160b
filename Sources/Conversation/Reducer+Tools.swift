import Live
import TUI

extension Reducer {
    static func toolCalls(_ s: inout AppState, _ calls: [FunctionCall], now: Double) -> [Effect] {
        // Only tools that can be switched are checked: a name the session never offered is the runner's to refuse.
        let off = Set(s.context.tools.filter { !$0.on }.map(\.name))
        let isOff = { (c: FunctionCall) in off.contains(c.name) }
        let refused = calls.filter(isOff)
        var fx: [Effect] = []
        if !refused.isEmpty {
            let answers = refusedCalls(s, refused)
            for (c, a) in zip(refused, answers) {
                let text = a.response.compactText
                s.ui.toolLog.calls.append(ToolCallEntry(
                    id: c.id, name: c.name, server: s.toolServers[c.name], arguments: c.args.compactText, result: text, state: .error, duration: 0))
                fx.append(.record(.tool(id: c.id, name: c.name, arguments: c.args.compactText, state: .error, result: text, duration: 0)))
            }
            fx.append(.answerTools(answers))
        }
        let calls = calls.filter { !isOff($0) }
        guard !calls.isEmpty else { return fx }
        for c in calls {
            s.ui.toolLog.calls.append(ToolCallEntry(
                id: c.id, name: c.name, server: s.toolServers[c.name], arguments: c.args.compactText, state: .running,
                behavior: s.toolPolicy.asyncFunctions ? s.toolPolicy.behavior(of: c.name).rawValue : nil,
                scheduling: s.toolPolicy.responseScheduling(of: c.name)?.rawValue))
            s.toolStarts[c.id] = now
        }
        return fx + [.runTools(calls)]
    }

    static func cancelToolCalls(_ s: inout AppState, _ ids: [String], now: Double) -> [Effect] {
        var fx: [Effect] = []
        if let shown = s.confirmations.first, ids.contains(shown.id) { s.ui.overlay = nil }
        s.confirmations.removeAll { ids.contains($0.id) }
        showNextConfirmation(&s)
        for id in ids {
            if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }), [.pending, .running].contains(s.ui.toolLog.calls[i].state) {
                s.ui.toolLog.calls[i].state = .cancelled
                s.ui.toolLog.calls[i].duration = s.toolStarts[id].map { now - $0 }
                let c = s.ui.toolLog.calls[i]
                fx.append(.record(.tool(id: id, name: c.name, arguments: c.arguments, state: .cancelled, result: nil, duration: c.duration)))
            }
        }
        fx.append(.cancelTools(ids))
        return fx
    }

    static func confirmTool(_ s: inout AppState, id: String, name: String, detail: String) -> [Effect] {
        if s.quitting { return [.answerConfirmation(id: id, yes: false)] }
        if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }) { s.ui.toolLog.calls[i].state = .pending }
        s.confirmations.append((id, name, detail))
        showNextConfirmation(&s)
        return []
    }

    static func toolFinished(_ s: inout AppState, id: String, outcome: ToolOutcome, result: String, now: Double) -> [Effect] {
        guard let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }), [.running, .pending].contains(s.ui.toolLog.calls[i].state) else { return [] }
        s.ui.toolLog.calls[i].state = outcome == .ok ? .ok : outcome == .denied ? .denied : .error
        s.ui.toolLog.calls[i].result = result
        s.ui.toolLog.calls[i].duration = s.toolStarts[id].map { now - $0 }
        let c = s.ui.toolLog.calls[i]
        return [.record(.tool(id: id, name: c.name, arguments: c.arguments, state: c.state, result: result, duration: c.duration))]
    }

    /// Shows the first waiting confirmation unless another popup is up.
    static func showNextConfirmation(_ s: inout AppState) {
        if case .confirm(var shown)? = s.ui.overlay {
            shown.queued = max(0, s.confirmations.count - 1)
            s.ui.overlay = .confirm(shown)
            return
        }
        guard s.ui.overlay == nil, let next = s.confirmations.first else { return }
        s.ui.overlay = .confirm(ConfirmModel(
            title: "Gemini wants to run \(next.name)", question: "Run this? y = yes, n or Enter = no", detail: next.detail,
            queued: s.confirmations.count - 1))
    }
}
