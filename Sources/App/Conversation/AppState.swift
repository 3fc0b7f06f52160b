import Foundation
import Live
import TUI

/// Everything the interactive program knows, as one value. The reducer changes it; the runtime draws
/// `ui` and carries out the effects.
struct AppState: Sendable {
    var ui = UIState()
    var mode: Config.Mode
    var voice: String
    var demo: Bool
    /// Whether sound works (false: text only).
    var audioAvailable: Bool
    var ptt: PushToTalk
    /// The mic gate is open (push-to-talk held, or open mic unmuted).
    var micOpen = false
    /// Open mic was muted by the user.
    var micMuted = false
    var connected = false
    /// The model is answering (from its first output to `turnComplete`).
    var modelResponding = false
    var userEntry: Int?
    /// A typed turn is waiting for its echo as input transcription (already shown: not shown twice).
    var typedTurnPending = false
    var modelEntry: Int?
    /// The thought streaming now, if any.
    var thoughtEntry: Int?
    /// This turn's transcription fragments, joined into clean text.
    var userWords = TranscriptText()
    var modelWords = TranscriptText()
    /// A voice switch waiting for the end of the turn.
    var pendingVoice: String?
    /// A mode switch waiting for the new connection.
    var pendingMode: Config.Mode?
    /// Reply audio of this turn is being dropped (Ctrl-C interrupted it locally).
    var discardingReply = false
    /// When the user's speech (or typed turn) ended, for the turn latency.
    var userTurnEndedAt: Double?
    var sessionStartedAt: Double?
    var goAwayDeadline: Double?
    var reconnectAt: Double?
    var tokens = 0
    /// Tool calls waiting for the user's answer, the one shown first.
    var confirmations: [(id: String, name: String, detail: String)] = []
    /// Tool name → the MCP server that runs it.
    var toolServers: [String: String] = [:]
    /// Tool call id → when it started.
    var toolStarts: [String: Double] = [:]
    /// How each function runs (BLOCKING or NON_BLOCKING, and its scheduling), for the tool log.
    var toolPolicy = ToolCallPolicy.blocking
    var quitting = false
    var keyMap = KeyMap.default

    init(config: Config, demo: Bool, audioAvailable: Bool, kitty: Bool) {
        mode = config.mode
        voice = config.voice
        self.demo = demo
        self.audioAvailable = audioAvailable
        ptt = PushToTalk(mode: kitty ? .kitty : .autoRepeat)
        ui.header = HeaderModel(
            model: config.model, voice: config.voice, connection: .connecting,
            pushToTalk: Self.pttDisplay(mode: config.mode, kitty: kitty), demo: demo)
    }

    static func pttDisplay(mode: Config.Mode, kitty: Bool) -> PushToTalkMode {
        mode == .open ? .openMic : (kitty ? .kittyHold : .tapToggle)
    }

    /// When the loop must wake up next even with no input: PTT inference, countdowns, session age.
    func nextDeadline(now: Double) -> Double? {
        var d: [Double] = []
        if let p = ptt.deadline { d.append(p) }
        // Countdowns and the session age tick once a second.
        if goAwayDeadline != nil || reconnectAt != nil || sessionStartedAt != nil { d.append(now.rounded(.down) + 1) }
        return d.min()
    }
}

/// Something that happened, for the reducer.
enum AppEvent: Sendable {
    case input(InputEvent)
    case live(LiveEvent)
    case tick
    /// The first reply audio of a turn reached the speaker path.
    case replyAudioStarted
    case toolFinished(id: String, outcome: ToolOutcome, result: String)
    /// A long tool reported a partial result (sent with `willContinue`).
    case toolPartial(id: String, result: String)
    /// A tool call waits for the user's yes or no (e.g. the exact shell command).
    case confirmTool(id: String, name: String, detail: String)
    /// Audio failed or changed (e.g. a device vanished); shown as a system line.
    case audioNotice(String)
    /// Ctrl-Z: the process is about to stop; nothing may keep listening meanwhile.
    case suspending
    case quitRequested
}

/// What the reducer asks the runtime to do.
enum Effect: Sendable, Equatable {
    /// Push-to-talk pressed: `activityStart`, open the mic gate.
    case startTalking
    /// Push-to-talk released: close the gate (the chunk in flight is delivered), then `activityEnd`.
    case stopTalking
    /// Open mic: open or close the gate; closing sends `audioStreamEnd`.
    case setOpenMic(Bool)
    case sendText(String)
    /// Silence the speaker and drop the rest of this reply.
    case interruptPlayback
    case switchVoice(String)
    case switchMode(Config.Mode)
    case runTools([FunctionCall])
    case cancelTools([String])
    /// The user answered a confirmation (also `false` when the call was cancelled meanwhile).
    case answerConfirmation(id: String, yes: Bool)
    case record(TranscriptRecord)
    /// Scroll the transcript (the runtime knows the laid-out lines).
    case scroll(ScrollCommand)
    /// A new session started without the old one's context: give it the transcript so far.
    case seedTranscript
    case export
    case quit
}
