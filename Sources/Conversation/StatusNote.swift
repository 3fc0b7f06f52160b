/// The transient note on the status line, as what happened rather than as text: the reducer decides on a
/// case and matches on cases (a note about sending images is cleared when they went out, the interrupted-
/// reply note when the next reply starts); `text` is what the status line shows.
package enum StatusNote: Sendable, Equatable {
    case demo
    case noAudio
    case offlinePushToTalk
    case replyInterrupted
    case thoughts(shown: Bool)
    case exported(path: String)
    case exportFailed(String)
    case budgetReachedAsk
    case budgetReachedWaiting
    /// `names`: the images, as `ImageList.names` words them.
    case sendingImages(names: String)
    case imagesAttached(names: String)
    case imagesNotQueuedOffline
    case attaching(file: String?)
    case nothingToShare
    case sourceUnavailable(String)
    case sharing(source: String, on: Bool)
    /// Where the search is (`SearchState.status`: which match of how many, or none).
    case search(String)
    case noSearchYet
    case recording(path: String)
    case recordingPaused
    case recordingFailed(String)
    case noPersonas
    case switchingPersona(String?)
    case instructionUnchanged
    case instructionEmpty
    case applyingInstruction
    case toolsChanged(String)

    package var text: String {
        switch self {
        case .demo: "DEMO: talking to the built-in simulator — no key, no network"
        case .noAudio: "no audio: press Tab to type instead"
        case .offlinePushToTalk:
            "offline: push-to-talk is paused until the connection is back (Tab types a queued message, r retries now)"
        case .replyInterrupted: "reply interrupted — Ctrl-C again to quit"
        case .thoughts(let shown): shown ? "showing the model's thoughts" : "thoughts folded"
        case .exported(let path): "exported to \(path)"
        case .exportFailed(let message): message
        case .budgetReachedAsk: "budget reached — press Space or Enter to decide whether to go on"
        case .budgetReachedWaiting: "budget reached: the mic and typed messages wait (Space or Enter asks again)"
        case .sendingImages(let names): "sending \(names)…"
        case .imagesAttached(let names): "\(names) attached: it goes with your next turn (type, or talk)"
        case .imagesNotQueuedOffline: "offline: images do not wait in the queue — send it again when the connection is back"
        case .attaching(let file?): "attaching \(file)…"
        case .attaching(nil): "attaching…"
        case .nothingToShare: "nothing to share: start parley with --camera [DEVICE] or --screen"
        case .sourceUnavailable(let source): "\(source) is not available here (see above)"
        case .sharing(let source, true): "\(source) on: frames go out while you talk"
        case .sharing(let source, false): "\(source) off — nothing is captured"
        case .search(let text): text
        case .noSearchYet: "no search yet: / searches the transcript"
        case .recording(let path): "recording to \(path) (R pauses)"
        case .recordingPaused: "recording paused (R goes on in the same file)"
        case .recordingFailed(let message): message
        case .noPersonas: "no personas: add [[persona]] entries to the config (see the README)"
        case .switchingPersona(let name?): "switching to persona \(name)…"
        case .switchingPersona(nil): "going back to the config's own settings…"
        case .instructionUnchanged: "instruction unchanged — nothing to apply"
        case .instructionEmpty: "the file was empty — the instruction stays as it was"
        case .applyingInstruction: "applying the edited instruction…"
        case .toolsChanged(let words): "tools: " + words
        }
    }

    /// A change of persona or instruction on its way (cleared once the session says it took effect).
    var isContextChangePending: Bool {
        switch self {
        case .switchingPersona, .applyingInstruction: true
        default: false
        }
    }

    var isSendingImages: Bool { if case .sendingImages = self { true } else { false } }
}
