import Foundation
import Live
import TUI

/// Everything the interactive program knows, as one value. The reducer changes it; the runtime draws
/// `ui` and carries out the effects. Each fact has one owner: talking in `talk`, a pending typed turn in
/// `typedTurn`, the connection in `connection`; `ui` is what is drawn from them.
package struct AppState: Sendable {
    package var ui = UIState()
    /// The status line's note; `ui.status` is its text, kept by this property alone.
    package var status: StatusNote? { didSet { ui.status = status?.text } }
    package var talk: TalkState
    package var voice: String
    package var demo: Bool
    /// Whether sound works (false: text only).
    package var audioAvailable: Bool
    /// Which protection keeps the model from hearing itself in open mic (from the audio side at launch).
    package var echoProtection: String?
    /// The connection as the session reported it last; the header's connection is computed from it.
    package var link = LinkState.connecting(attempt: 0, resuming: false)
    package var connected: Bool { link.isLive }
    /// The connection is lost and being retried (typed turns queue, the mic pauses).
    package var offline: Bool { link.isOffline }
    var typedTurn: TypedTurn?
    /// The last user turn (typed, or spoken once transcribed) until a reply to it starts. The session sends an
    /// unanswered turn again on a new connection (`turnResent`) and the service transcribes it a second time;
    /// that repeat is absorbed like a typed turn's echo, so the question stays one record.
    var unanswered: String?
    /// `typedTurn` and `unanswered` before the last typed turn replaced them: it may wait in the queue behind
    /// an earlier turn with no answer, whose echo and answer are then still due.
    var typedBefore: TypedTurn?
    var unansweredBefore: String?
    /// Typed turns waiting in the offline queue, by queue id: their echo comes when they go out.
    var queuedTexts: [Int: String] = [:]
    var userEntry: Int?
    var modelEntry: Int?
    /// The thought streaming now, if any.
    var thoughtEntry: Int?
    /// This turn's transcription fragments, joined into clean text.
    var userWords = TranscriptText()
    var modelWords = TranscriptText()
    /// A voice switch waiting for the end of the turn.
    var pendingVoice: String?
    /// Per-turn latency as the user feels it, and its percentiles over the session.
    package var latency = TurnLatency()
    /// When the server last transcribed the user (open mic: the end of speech is not seen locally).
    var lastHeardAt: Double?
    var sessionStartedAt: Double?
    var goAwayDeadline: Double?
    /// Tokens and money per turn, the context, the budget (`UsageState` owns them all).
    package var usage: UsageState
    /// The budget question is the popup on screen (not a tool's).
    var budgetAsking = false
    /// The user was told once that unpriced tokens make the budget inexact.
    var budgetUnpricedNoted = false
    /// A resumed conversation's earlier usage was written to this part's transcript.
    package var carryRecorded = false
    /// Tool calls waiting for the user's answer, the one shown first.
    package var confirmations: [(id: String, name: String, detail: String)] = []
    /// Tool name → the MCP server that runs it.
    package var toolServers: [String: String] = [:]
    /// Tool call id → when it started.
    var toolStarts: [String: Double] = [:]
    /// How each function runs (BLOCKING or NON_BLOCKING, and its scheduling), for the tool log.
    package var toolPolicy = ToolCallPolicy.blocking
    package var quitting = false
    package var keyMap = KeyMap.default
    /// Images, the camera and the screen.
    package var vision = VisionState()
    /// The conversation's sound is being recorded (the header's REC mark).
    package var recording = false
    /// The persona, the instruction, thinking and the tools that are on.
    package var context = ContextState()

    package init(model: String, voice: String, mode: TalkMode, usage: UsageState, demo: Bool, audioAvailable: Bool, kitty: Bool) {
        talk = TalkState(mode: mode, kitty: kitty)
        self.voice = voice
        self.usage = usage
        self.demo = demo
        self.audioAvailable = audioAvailable
        ui.header = HeaderModel(
            model: model, voice: voice, connection: .connecting,
            pushToTalk: Self.pttDisplay(mode: mode, kitty: kitty), demo: demo)
        // With a budget the cost is shown from the start.
        if usage.budget != nil { ui.header.cost = usage.total.short }
    }

    package var mode: TalkMode { talk.mode }
    package var micOpen: Bool { talk.micIsOpen }
    var modelResponding: Bool { talk.modelAnswering }

    static func pttDisplay(mode: TalkMode, kitty: Bool) -> PushToTalkMode {
        mode == .open ? .openMic : (kitty ? .kittyHold : .tapToggle)
    }

    /// When the loop must wake up next even with no input: PTT inference, a closing mic, countdowns.
    package func nextDeadline(now: Double) -> Double? {
        var d: [Double] = []
        if let t = talk.deadline { d.append(t) }
        // Countdowns and the session age tick once a second.
        if goAwayDeadline != nil || link.retryAt != nil || sessionStartedAt != nil { d.append(now.rounded(.down) + 1) }
        return d.min()
    }
}
