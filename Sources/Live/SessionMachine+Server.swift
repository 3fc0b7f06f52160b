import Foundation

/// Server messages: one handler per field, applied in a fixed order (a message can carry several).
/// Interruption comes first because it outranks audio: playback is flushed before anything else happens.
extension SessionMachine {
    mutating func receive(_ message: ServerMessage, on id: Int) {
        if message.setupComplete != nil { step(.setupComplete(id: id)) }
        if let content = message.serverContent {
            if content.interrupted == true { interrupted() }
            if let t = content.interimInputTranscription, let text = t.text, !text.isEmpty {
                emit(.interimInputTranscription(text))
            }
            if let t = content.inputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                inputTranscription(text, finished: t.finished ?? false)
            }
            if let status = content.interactionStatus?.interactionStatusText { emit(.interactionStatus(status)) }
            if let turn = content.modelTurn { modelTurn(turn) }
            if let t = content.outputTranscription, let text = t.text ?? (t.finished == true ? "" : nil) {
                modelSaid(text)
                emit(.outputTranscription(text, finished: t.finished ?? false))
            }
            if let grounding = content.groundingMetadata.flatMap({ ModelActivity.grounding($0) }) {
                emit(.modelActivity(grounding))
            }
        }
        if let call = message.toolCall { toolCall(call) }
        if let cancel = message.toolCallCancellation { emit(.toolCallCancellation(ids: cancel.ids)) }
        if let usage = message.usageMetadata { emit(.usage(usage)) }
        if let content = message.serverContent { turnEnd(content) }
        if let update = message.sessionResumptionUpdate {
            emit(.resumptionUpdate(resumable: update.usableHandle != nil))
            if let handle = update.usableHandle { step(.resumptionHandle(handle)) }
        }
        if let goAway = message.goAway {
            let left = goAway.timeLeftDuration ?? .seconds(0)
            emit(.goAway(timeLeft: left))
            step(.goAway(id: id, timeLeft: left.inSeconds))
        }
    }

    private mutating func emit(_ event: LiveEvent) { out.append(.emit(event)) }

    /// The end of an earlier reply; a turn still waiting for its answer keeps the watchdog armed.
    private mutating func interrupted() {
        replyEnded()
        if pending.isEmpty { watchdog?.reset() }
        out.append(.playback(.flush))
        emit(.interrupted)
    }

    private mutating func inputTranscription(_ text: String, finished: Bool) {
        step(.turnStarted)
        // A typed turn's echo is not new speech.
        if pending.last(where: { $0.awaits(on: connection.liveID) })?.text == nil { log.append(role: "user", text) }
        emit(.inputTranscription(text, finished: finished))
    }

    /// Text parts are thoughts on native-audio models answering with audio.
    private var textPartsAreThoughts: Bool {
        LiveModel.traits(of: setup.model).textPartsAreThoughts && setup.generationConfig?.responseModalities?.first != "TEXT"
    }

    private mutating func modelTurn(_ turn: Content) {
        step(.turnStarted)
        turnEndReported = false
        // Looked up once a frame, and only for a frame with text: most frames carry audio alone.
        var thoughts: Bool?
        for part in turn.parts {
            if let blob = part.inlineData, blob.mimeType.hasPrefix("audio/") {
                replyAudio(blob.data)
                out.append(.playback(.play(blob.data)))
            } else if let text = part.text {
                if thoughts == nil { thoughts = textPartsAreThoughts }
                if part.thought == true || thoughts == true {
                    // The model is working: not yet an answer (a close now still sends the turn again).
                    watchdog?.replied()
                    emit(.thought(text))
                } else {
                    modelSaid(text)
                    emit(.modelText(text))
                }
            }
            for activity in ModelActivity.of(part) { emit(.modelActivity(activity)) }
        }
    }

    /// Reply audio: audible audio answers the turn; near silence for too long is a stall.
    private mutating func replyAudio(_ pcm: Data) {
        switch watchdog?.replyAudio(pcm, now: now) {
        case .audible?, nil: answered()
        case .quiet?: break
        case .stalled(let finding, let recovery)?: recover(finding, recovery)
        }
    }

    /// Notes model output for the pending turn and the conversation log.
    private mutating func modelSaid(_ text: String?) {
        answered()
        if let text { log.append(role: "model", text) }
    }

    private mutating func toolCall(_ call: ToolCall) {
        step(.turnStarted)
        modelSaid(nil)
        watchdog?.reset()  // the tool runs now; its response re-arms the watchdog
        emit(.toolCall(call.functionCalls))
    }

    /// Some models end a turn with `generationComplete` alone, or say they wait for input; the end is reported
    /// once either way.
    private mutating func turnEnd(_ content: ServerContent) {
        if content.generationComplete == true { emit(.generationComplete) }
        let ends = content.turnComplete == true || content.waitingForInput == true
            || (content.generationComplete == true && LiveModel.traits(of: setup.model).mayOmitTurnComplete)
        guard ends else { return }
        replyEnded()
        let reported = turnEndReported
        turnEndReported = content.turnComplete != true
        guard !reported else { return }
        if pending.isEmpty { watchdog?.reset() }
        out.append(.playback(.turnComplete))
        emit(.turnComplete(reason: content.turnCompleteReason))
        step(.turnEnded)
        sendNextQueued()
    }
}
