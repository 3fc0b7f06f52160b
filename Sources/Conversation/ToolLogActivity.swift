import Live
import TUI

/// Code the model ran and searches it made, as rows of the tool log next to the function calls.
package enum ToolLogActivity {
    package static func apply(_ activity: ModelActivity, to log: inout ToolLogModel, now: Double) {
        switch activity {
        case .code(let language, let code):
            let n = log.calls.count
            log.calls.append(ToolCallEntry(
                id: "code-\(n)", name: language.isEmpty ? "code" : "code (\(language.lowercased()))",
                arguments: code, state: .running))
        case .codeResult(let outcome, let output):
            let ok = outcome.isEmpty || outcome == "OUTCOME_OK"
            // The result belongs to the newest code still running.
            if let i = log.calls.lastIndex(where: { $0.id.hasPrefix("code-") && $0.state == .running }) {
                log.calls[i].state = ok ? .ok : .error
                log.calls[i].result = output
            } else {
                log.calls.append(ToolCallEntry(
                    id: "code-\(log.calls.count)", name: "code result", arguments: outcome, result: output,
                    state: ok ? .ok : .error))
            }
        case .grounding(let queries, let sources):
            log.calls.append(ToolCallEntry(
                id: "search-\(log.calls.count)", name: "google_search", arguments: queries.joined(separator: "; "),
                result: sources.isEmpty ? nil : sources.joined(separator: "\n"), state: .ok))
        }
    }
}
