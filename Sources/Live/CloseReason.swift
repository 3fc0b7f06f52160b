/// How a connection ended: the WebSocket close code, the server's reason text, and what the user should do.
public struct CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// The WebSocket close code (1006 when no close frame arrived).
    public let code: Int
    /// The server's reason text, with control characters replaced by spaces so it is safe on a terminal.
    public let reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = Self.sanitised(reason)
    }

    /// No close frame: the network dropped.
    public static func dropped(_ detail: String = "") -> CloseReason { CloseReason(code: 1006, reason: detail) }

    /// The row of the close table this close matches.
    public var rule: CloseRule { CloseTable.rule(for: self) }

    /// What the close means: transient, refused handle or fatal.
    public var kind: CloseClass { rule.kind }

    /// Whether retrying can never help (bad key, bad request, account limits).
    public var isFatal: Bool { kind.isFatal }

    /// What happened, for people.
    public var message: String { rule.message }

    /// What to do, from the table of close codes seen in the field.
    public var hint: String { rule.hint }

    /// The code and the server's reason, e.g. `code 1011 "Internal error encountered."`.
    public var codeAndReason: String { reason.isEmpty ? "code \(code)" : "code \(code) \"\(reason)\"" }

    public var description: String { "closed with \(codeAndReason): \(message) — \(hint)" }

    /// Control characters (a hostile or broken server could send escape sequences) are shown, not obeyed:
    /// C0 and DEL as their Control Pictures (`␛`, `␇`), as TUI's `TerminalText` shows them; C1 and format
    /// characters (bidi overrides) as U+FFFD. The reason then prints safely anywhere, even before the TUI.
    static func sanitised(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { s -> Unicode.Scalar in
            guard isControl(s) else { return s }
            if s.value < 0x20 { return Unicode.Scalar(0x2400 + s.value) ?? "\u{FFFD}" }
            if s.value == 0x7F { return "\u{2421}" }
            return "\u{FFFD}"
        }))
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.properties.generalCategory == .format && s.value != 0x200D
    }
}
