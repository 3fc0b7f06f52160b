/// A popup over the main screen.
public enum Overlay: Sendable, Equatable {
    case voiceMenu(VoiceMenu)
    /// The `[[persona]]` entries (the same filterable list; `style` holds each one's summary).
    case personaMenu(VoiceMenu)
    /// The keys; `top` is the first line shown when the list is taller than the screen allows.
    case help(top: Int)
    /// Per-turn latency: each stage's turns, last, p50 and p95.
    case latencyStats(LatencyStats)
    /// Tokens and money per turn and for the conversation.
    case usage(UsageTable)
    case confirm(ConfirmModel)
    /// A message box; any key closes it.
    case message(title: String, text: String)
    /// The path of an image to attach (Tab completes, Enter attaches, Esc cancels).
    case pathPrompt(LineEditor)
}
