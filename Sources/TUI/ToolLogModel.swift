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

/// A tool the session can offer the model, and whether it is offered now.
public struct ToolSwitch: Sendable, Equatable {
    public var name: String
    /// The MCP server that runs it; nil for parley's own tools.
    public var server: String?
    public var on: Bool
    public init(name: String, server: String? = nil, on: Bool) { self.name = name; self.server = server; self.on = on }
}

/// The tool-call log pane: calls, selection, expansion, focus; and the tools, each on or off.
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
    /// Every tool there is, parley's own first, then each MCP server's.
    public var tools: [ToolSwitch] = []
    /// The pane lists the tools instead of the calls (← →).
    public var showingTools = false
    /// Index into `tools` while they are listed.
    public var toolSelection = 0

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
    public enum Action: Sendable, Equatable {
        case none, handled, leave
        /// Turn this tool on or off.
        case toggle(String)
        /// Turn every tool of this MCP server (nil: parley's own) on, or off when all are on.
        case toggleGroup(server: String?)
    }

    /// Up/Down select, Enter/Space expand or fold, `c` collapses the pane, Esc/`t`/Tab leave; ← → switch
    /// between the calls and the tools, where Enter/Space turn the selected tool on or off and `a` its group.
    public mutating func handle(_ k: KeyEvent) -> Action {
        guard k.kind != .release else { return .none }
        switch k.key {
        case .left, .right:
            showingTools.toggle()
            expanded = false
            toolSelection = min(toolSelection, max(0, tools.count - 1))
            return .handled
        case .escape, .character("t"), .tab, .character("q"):
            // The pane goes back to the calls, which is what it shows while the conversation goes on.
            focused = false; expanded = false; showingTools = false; return .leave
        default: break
        }
        if showingTools { return handleTools(k) }
        switch k.key {
        case .up, .character("k"):
            selected = max(0, (selected ?? calls.count) - 1); return .handled
        case .down, .character("j"):
            selected = min(max(0, calls.count - 1), (selected ?? -1) + 1); return .handled
        case .home: selected = calls.isEmpty ? nil : 0; return .handled
        case .end: selected = calls.isEmpty ? nil : calls.count - 1; return .handled
        case .enter, .character(" "): expanded.toggle(); return .handled
        case .character("c"): collapsed.toggle(); return .handled
        default: return .none
        }
    }

    private mutating func handleTools(_ k: KeyEvent) -> Action {
        let last = max(0, tools.count - 1)
        switch k.key {
        case .up, .character("k"): toolSelection = max(0, toolSelection - 1)
        case .down, .character("j"): toolSelection = min(last, toolSelection + 1)
        case .home: toolSelection = 0
        case .end: toolSelection = last
        case .enter, .character(" "):
            return tools.indices.contains(toolSelection) ? .toggle(tools[toolSelection].name) : .handled
        case .character("a"):
            return tools.indices.contains(toolSelection) ? .toggleGroup(server: tools[toolSelection].server) : .handled
        case .character("c"): collapsed.toggle()
        default: return .none
        }
        return .handled
    }
}
