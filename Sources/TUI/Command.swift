/// What a key does on the main screen.
public enum Command: String, Sendable, CaseIterable {
    case pushToTalk, voiceMenu, toggleMicMode, textInput, toolLogFocus, help, quit, interruptOrQuit
    case latencyStats, usageStats
    case scrollPageUp, scrollPageDown, scrollTop, scrollBottom, scrollLineUp, scrollLineDown, export, toggleThoughts, retryNow
    case toggleSharing, attachImage, toggleRecording
    case search, searchOlder, searchNewer

    /// One line for the help overlay.
    public var summary: String {
        switch self {
        case .pushToTalk: return "talk: hold Space (or tap to start, tap again to stop)"
        case .voiceMenu: return "choose a voice"
        case .toggleMicMode: return "switch push-to-talk / open mic"
        case .textInput: return "type a message (Enter sends, Esc leaves)"
        case .toolLogFocus: return "focus the tool-call log (↑↓ select, Enter expand)"
        case .help: return "this help"
        case .latencyStats: return "latency per turn: first words, audio, sound (p50/p95)"
        case .usageStats: return "usage per turn: tokens by modality, cost, context, budget"
        case .quit: return "quit"
        case .interruptOrQuit: return "interrupt the reply; quit when idle"
        case .scrollPageUp: return "scroll the transcript up a page"
        case .scrollPageDown: return "scroll the transcript down a page"
        case .scrollTop: return "go to the start of the conversation"
        case .scrollBottom: return "go to the newest line (follow)"
        case .scrollLineUp: return "scroll up one line"
        case .scrollLineDown: return "scroll down one line"
        case .export: return "export the transcript as Markdown"
        case .toggleThoughts: return "show or fold the model's thoughts"
        case .retryNow: return "offline: reconnect now instead of waiting"
        case .toggleSharing: return "camera or screen sharing on or off"
        case .attachImage: return "attach an image to the next turn"
        case .search: return "search the transcript as you type (Esc leaves)"
        case .searchOlder: return "the older search match (wraps)"
        case .searchNewer: return "the newer search match (wraps)"
        case .toggleRecording: return "record the conversation's sound, or pause the recording"
        }
    }
}
