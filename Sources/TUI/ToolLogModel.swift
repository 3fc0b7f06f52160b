/// A tool call's state, each shown in its own colour.
public enum ToolCallState: String, Sendable, Equatable, CaseIterable {
    case pending, running, ok, error, cancelled, denied

    var role: Role {
        switch self {
        case .pending: return .toolPending
        case .running: return .toolRunning
        case .ok: return .toolOk
        case .error: return .toolError
        case .cancelled: return .toolCancelled
        case .denied: return .toolDenied
        }
    }
}

/// One row of the tool-call log.
public struct ToolCallEntry: Sendable, Equatable {
    public var id: String
    public var name: String
    /// The MCP server or provider, if any.
    public var server: String?
    /// The arguments as compact JSON.
    public var arguments: String
    /// The result or error text, once there is one.
    public var result: String?
    public var state: ToolCallState
    /// Seconds the call took (or has been running).
    public var duration: Double?
    /// `BLOCKING` or `NON_BLOCKING`, when the model runs functions asynchronously.
    public var behavior: String?
    /// When a NON_BLOCKING result reaches the model (`INTERRUPT`, `WHEN_IDLE`, `SILENT`).
    public var scheduling: String?
    /// Partial results sent so far (`willContinue`), oldest first.
    public var partials: [String]

    public init(id: String, name: String, server: String? = nil, arguments: String, result: String? = nil,
                state: ToolCallState = .pending, duration: Double? = nil, behavior: String? = nil,
                scheduling: String? = nil, partials: [String] = []) {
        self.id = id; self.name = name; self.server = server; self.arguments = arguments; self.result = result
        self.state = state; self.duration = duration; self.behavior = behavior; self.scheduling = scheduling
        self.partials = partials
    }
}

/// The tool-call log pane: calls, selection, expansion, focus.
public struct ToolLogModel: Sendable, Equatable {
    public var calls: [ToolCallEntry]
    /// Index of the selected call (while focused).
    public var selected: Int?
    /// The selected call shows its full arguments and result.
    public var expanded: Bool
    /// Keys go to the pane (`t`).
    public var focused: Bool
    /// The pane is hidden.
    public var collapsed: Bool

    public init(calls: [ToolCallEntry] = [], selected: Int? = nil, expanded: Bool = false, focused: Bool = false, collapsed: Bool = false) {
        self.calls = calls; self.selected = selected; self.expanded = expanded; self.focused = focused; self.collapsed = collapsed
    }

    /// Gives the pane the keys (`t`): shows it if collapsed and selects the newest call if none is selected.
    public mutating func focus() {
        focused = true
        collapsed = false
        if selected == nil || !(calls.indices.contains(selected ?? -1)) { selected = calls.isEmpty ? nil : calls.count - 1 }
    }

    /// Result of a key while the pane has focus.
    public enum Action: Sendable, Equatable { case none, handled, leave }

    /// Up/Down select, Enter/Space expand or fold, `c` collapses the pane, Esc/`t`/Tab leave.
    public mutating func handle(_ k: KeyEvent) -> Action {
        guard k.kind != .release else { return .none }
        switch k.key {
        case .up, .character("k"):
            selected = max(0, (selected ?? calls.count) - 1); return .handled
        case .down, .character("j"):
            selected = min(max(0, calls.count - 1), (selected ?? -1) + 1); return .handled
        case .home: selected = calls.isEmpty ? nil : 0; return .handled
        case .end: selected = calls.isEmpty ? nil : calls.count - 1; return .handled
        case .enter, .character(" "): expanded.toggle(); return .handled
        case .character("c"): collapsed.toggle(); return .handled
        case .escape, .character("t"), .tab, .character("q"):
            focused = false; expanded = false; return .leave
        default: return .none
        }
    }
}
