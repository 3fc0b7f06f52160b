import Foundation
import Live
import TUI

/// What the reducer asks the runtime to do. Each case names the executor it goes to, and its payload is
/// the executor's command as is, so an action keeps one name from key to wire.
package enum Effect: Sendable, Equatable {
    /// The capture gate (`AudioIO`).
    case mic(MicCommand)
    /// The speaker (`AudioIO`).
    case speaker(SpeakerCommand)
    /// The Live session.
    case live(SessionCommand)
    case runTools([FunctionCall])
    case cancelTools([String])
    /// The user answered a confirmation (also `false` when the call was cancelled meanwhile).
    case answerConfirmation(id: String, yes: Bool)
    case record(TranscriptRecord)
    /// Scroll the transcript; reported back as `.scrolled`.
    case scroll(ScrollCommand)
    /// Write the conversation as Markdown; reported back as `.exported`.
    case export
    /// Keep the session's resumption handle for `--resume`.
    case saveResumeHandle
    /// Remember the voice for the next launch.
    case rememberVoice(String)
    /// Stop the process (Ctrl-Z) with the terminal given back; everything is redrawn after `fg`.
    case suspend
    case quit
    /// Images, the camera and the screen (`VisionIO`).
    case vision(VisionCommand)
    /// Start or pause recording the conversation's sound (`ConversationRecorder`); answered by `.recording`.
    case recording(start: Bool)
    /// Open the instruction in the user's editor, the terminal lent to it as for a suspend; reported back as
    /// `.instructionEdited`.
    case editInstruction(String)
    /// Answer calls without running them (tools the user turned off).
    case answerTools([FunctionResponse])
}

package enum MicCommand: Sendable, Equatable {
    /// Open the gate; `openMic` turns on the open-mic protection (the canceller, or the half-duplex gate
    /// that holds the mic back while the model is heard); push-to-talk needs none.
    case open(openMic: Bool)
    /// Close the gate; the chunk in flight is delivered, then `micClosed(id)` is reported.
    case close(id: Int)
}

/// Everything that reaches the speaker, from the reducer (`Effect.speaker`) and from the Live receive path
/// (`init(_: PlaybackCommand)`, the one place Live's playback vocabulary is translated): one vocabulary into
/// `AudioIO.perform`.
package enum SpeakerCommand: Sendable, Equatable {
    /// Reply audio (24 kHz mono s16le), played unless replies are being dropped.
    case play(Data)
    /// The server interrupted the reply: silence now, dropping what is queued.
    case flush
    /// The model's turn is complete: let what is queued play out.
    case turnComplete
    /// The user cut the reply: `flush`, and drop the rest of this reply's audio until `acceptReplies`.
    case cutReply
    /// The reply ended: take the next reply's audio again.
    case acceptReplies
    /// Whether the model is answering (the half-duplex gate listens less while it is).
    case modelAnswering(Bool)

    package init(_ command: PlaybackCommand) {
        switch command {
        case .play(let pcm): self = .play(pcm)
        case .flush: self = .flush
        case .turnComplete: self = .turnComplete
        }
    }
}

package enum SessionCommand: Sendable, Equatable {
    case activityStart
    case activityEnd
    case audioStreamEnd
    case sendText(String)
    /// Move to a new connection with this voice; `duringReply` waits for a handle that covers the reply.
    case switchVoice(String, duringReply: Bool)
    case switchMode(TalkMode, duringReply: Bool)
    /// Change the instruction, tools and/or voice and keep the conversation (`LiveSession.changeContext`);
    /// reported back as `LiveEvent.contextChanged` or `.contextRefused`. Emit it with `Reducer.changeContext`.
    case changeContext(ContextChange, duringReply: Bool)
    /// Move to a new connection with this thinking level (a persona's); `duringReply` as for a voice.
    case changeThinking(String?, duringReply: Bool)
    /// Offline: try to reconnect now instead of waiting out the backoff.
    case retryNow
}
