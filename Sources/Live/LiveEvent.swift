import Foundation

/// What a `LiveSession` reports, in the order it happened.
public enum LiveEvent: Sendable, Equatable {
    /// A connection is opening (`attempt` 0 for the first one and for planned hand-overs).
    case connecting(attempt: Int, resuming: Bool)
    /// `setupComplete`: the connection is live. `resumed` when it continued an earlier connection by handle.
    case setupComplete(resumed: Bool)
    /// Reply audio, 24 kHz mono s16le — only when the session has no direct audio handler.
    case audio(Data)
    case inputTranscription(String, finished: Bool)
    case outputTranscription(String, finished: Bool)
    /// Model text (text-modality replies).
    case modelText(String)
    /// The model's thoughts: text parts on native-audio models (the spoken reply comes as output transcription).
    case thought(String)
    /// A fast partial transcript of the user that the next `inputTranscription` replaces.
    case interimInputTranscription(String)
    /// What the model is doing in the background (`serverContent.interactionStatus`); cleared at turn end.
    case interactionStatus(String)
    /// Code the model ran, or the searches its answer rests on.
    case modelActivity(ModelActivity)
    case generationComplete
    /// The model's turn ended: `turnComplete` (with its `turnCompleteReason`), or, on a model that may omit
    /// it, `generationComplete`, or `waitingForInput`. Reported once per turn.
    case turnComplete(reason: String?)
    /// The user barged in: the reply was cut; playback was already flushed.
    case interrupted
    case toolCall([FunctionCall])
    case toolCallCancellation(ids: [String])
    case goAway(timeLeft: Duration)
    /// A `sessionResumptionUpdate`; the handle itself is kept inside the session and never reported.
    case resumptionUpdate(resumable: Bool)
    case usage(UsageMetadata)
    /// One connection ended; a reconnect or hand-over may follow.
    case connectionClosed(CloseReason)
    /// A reconnect is scheduled after `delay` seconds: the session is offline until then.
    case reconnecting(attempt: Int, delay: Double, after: CloseReason)
    /// A frame that was not valid; the session carries on.
    case protocolError(String)
    /// Mic audio was not kept: the hand-over took too long (the oldest beyond the bound) or the session is
    /// offline (held audio beyond a short window is dropped and no more is held until the connection is back).
    case heldAudioDropped(bytes: Int)
    /// A typed turn (the id `sendText` returned) waits for the connection, or behind a turn not answered
    /// yet; `waiting` typed turns are queued.
    case textQueued(id: Int, text: String, waiting: Int)
    /// Queued typed turns were sent, in this order (on a connection that just went live, or after an answer).
    case queuedTextSent(ids: [Int])
    /// A typed turn could not be queued: too many are waiting already.
    case textNotQueued(id: Int, limit: Int)
    /// A user turn that had no answer yet when its connection closed was sent again on the new one: `text`
    /// is the typed turn's (its echo comes again), nil for a spoken turn.
    case turnResent(text: String?)
    /// The conversation moves to a new session on the service, seeded with the conversation so far.
    case freshSession(ConnectionMachine.FreshSessionCause)
    /// The reply watchdog noticed a silent failure and is recovering (a nudge first, then a resume).
    case replyStalled(ReplyWatchdog.Finding, recovery: ReplyWatchdog.Recovery)
    /// A context change (`LiveSession.changeContext`) took effect, by this route: from the next reply on the
    /// model works under it.
    case contextChanged(ContextChange, via: ContextChange.Route)
    /// A context change was not applied; the conversation goes on as it was.
    case contextRefused(ContextChange, ContextChange.Refusal)
    /// The session cannot continue (fatal close, or reconnects exhausted).
    case failed(CloseReason)
    /// `close()` finished.
    case closed
}

/// What the receive path tells playback directly, without a trip through the main loop.
public enum PlaybackCommand: Sendable, Equatable {
    /// 24 kHz mono s16le reply audio.
    case play(Data)
    /// Interrupted: silence the speaker now and drop everything queued.
    case flush
    /// The model's turn is complete: let what is queued play out.
    case turnComplete
}
