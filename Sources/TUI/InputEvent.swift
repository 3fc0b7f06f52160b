/// What the terminal sent, decoded.
public enum InputEvent: Sendable, Hashable {
    case key(KeyEvent)
    /// A bracketed paste, as one event.
    case paste(String)
    /// Reply to `CSI ? u`: the terminal speaks the kitty keyboard protocol; its current flags.
    case kittyFlags(Int)
    /// Reply to `CSI c` (primary device attributes).
    case deviceAttributes
    /// A focus change (`CSI I` / `CSI O`), if the terminal reports them.
    case focus(Bool)
}
