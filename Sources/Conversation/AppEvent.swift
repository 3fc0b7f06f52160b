import Live
import TUI

/// Something that happened, for the reducer: input, the Live session, the audio side, tools, and the
/// results of effects (effects report back here instead of writing state).
package enum AppEvent: Sendable {
    case input(InputEvent)
    case live(LiveEvent)
    case tick
    /// The first reply audio of a turn reached the speaker path, at this time on the app's clock.
    case replyAudioStarted(at: Double)
    /// The speaker played the first sample of a reply, at this time on the app's `TimeSource`:
    /// when the user could first hear it. Posted by the playback path once per reply.
    case replyAudible(at: Double)
    /// The capture thread handed over the last chunk after the gate closed (`MicCommand.close(id)`).
    case micClosed(id: Int)
    case toolFinished(id: String, outcome: ToolOutcome, result: String)
    /// A long tool reported a partial result (sent with `willContinue`).
    case toolPartial(id: String, result: String)
    /// A tool call waits for the user's yes or no (e.g. the exact shell command).
    case confirmTool(id: String, name: String, detail: String)
    /// Audio failed or changed (e.g. a device vanished); shown as a system line.
    case audioNotice(String)
    /// The terminal's size now (start, resize, back from a suspend).
    case screenSize(Size)
    /// The transcript view moved (the renderer knows the laid-out lines).
    case scrolled(TranscriptScroll?)
    /// `e` wrote the conversation as Markdown, or could not.
    case exported(Result<String, ExportFailure>)
    /// Ctrl-Z: the process is about to stop; nothing may keep listening meanwhile.
    case suspending
    case quitRequested
    /// Change the instruction, tools and/or voice and keep the conversation (a persona chosen, an instruction
    /// edited, tools toggled): the reducer asks the session (`Reducer.changeContext`), which reports back as
    /// `LiveEvent.contextChanged` or `.contextRefused`.
    case changeContext(ContextChange)
    /// Images, the camera and the screen (see `VisionEvent`).
    case vision(VisionEvent)
    /// The recording started, paused or failed (`ConversationRecorder`).
    case recording(RecordingEvent)
    /// The editor opened on the instruction closed.
    case instructionEdited(InstructionEdit)
}

/// Why an export did not happen, in words for the status line.
package struct ExportFailure: Error, Sendable, Equatable {
    package let message: String

    package init(message: String) { self.message = message }
}

/// How one call ended.
package enum ToolOutcome: Sendable, Equatable { case ok, error, denied }
