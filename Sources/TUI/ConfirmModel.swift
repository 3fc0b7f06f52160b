/// A yes/no question, default no (e.g. "run shell command: <exact command>? y/N").
public struct ConfirmModel: Sendable, Equatable {
    public var title: String
    public var question: String
    /// Shown verbatim and in full (wrapped, never cut), e.g. the exact command.
    public var detail: String?

    public init(title: String = "Confirm", question: String, detail: String? = nil) {
        self.title = title; self.question = question; self.detail = detail
    }

    /// The answer a key gave, if any.
    public enum Action: Sendable, Equatable { case none, yes, no }

    /// `y` answers yes; `n`, Esc, Enter (the default) and `q` answer no.
    public func handle(_ k: KeyEvent) -> Action {
        guard k.kind != .release else { return .none }
        switch k.key {
        case .character("y"), .character("Y"): return .yes
        case .character("n"), .character("N"), .escape, .enter, .character("q"): return .no
        default: return .none
        }
    }
}
