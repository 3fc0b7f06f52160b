import Live
import ParleyTime
import TUI

extension Reducer {
    static func handleLive(_ s: inout AppState, _ e: LiveEvent, now: Double) -> [Effect] {
        var fx: [Effect] = []
        switch e {
        case .connecting(let attempt, let resuming):
            s.link = .connecting(attempt: attempt, resuming: resuming || s.sessionStartedAt != nil)
        case .setupComplete(let resumed):
            fx += connected(&s, resumed: resumed, now: now)
        case .audio:
            break
        case .inputTranscription(let text, let finished):
            if var typed = s.typedTurn {
                if typed.absorbEcho(text) {
                    s.typedTurn = finished ? typed.echoFinished() : typed
                    break
                }
                s.typedTurn = nil
            }
            if s.talk.reply != .idle, s.talk.mode == .open {
                fx += finishModelEntry(&s, interrupted: true)
            }
            if s.talk.mode == .open {
                s.lastHeardAt = now
                s.latency.userStarted()
            }
            fx += appendUser(&s, text, finished: finished)
        case .interimInputTranscription(let text):
            guard s.typedTurn == nil else { break }
            if let id = s.userEntry {
                s.ui.transcript.update(id) { $0.partial = TranscriptText($0.partial + text).text }
            } else {
                s.userEntry = s.ui.transcript.append(.user, "")
                s.ui.transcript.update(s.userEntry ?? -1) { $0.partial = TranscriptText(text).text }
            }
        case .thought(let text):
            if let id = s.thoughtEntry {
                s.ui.transcript.update(id) { $0.interim += text }
            } else {
                let folded = !s.ui.transcript.showThoughts
                s.thoughtEntry = s.ui.transcript.append(.thought, "", interim: text)
                s.ui.transcript.update(s.thoughtEntry ?? -1) { $0.folded = folded }
            }
        case .interactionStatus(let status):
            s.ui.header.interactionStatus = status
        case .modelActivity(let activity):
            ToolLogActivity.apply(activity, to: &s.ui.toolLog, now: now)
        case .outputTranscription(let text, let finished):
            fx += appendModel(&s, text, finished: finished, now: now)
        case .modelText(let text):
            fx += appendModel(&s, text, finished: false, now: now)
        case .generationComplete:
            break
        case .turnComplete(let reason):
            s.thoughtEntry = nil
            s.ui.header.interactionStatus = nil
            if let reason, !reason.isEmpty, reason != "TURN_COMPLETE_REASON_UNSPECIFIED" {
                fx += system(&s, "the model ended its turn: \(reason)")
            }
            if s.typedTurn?.afterReply != true { s.latency.turnCompleted() }
            if var typed = s.typedTurn {
                // The first turn to complete after a typed turn sent over a reply is that reply's.
                if typed.afterReply { typed.afterReply = false; s.typedTurn = typed } else { s.typedTurn = nil }
            }
            fx += finishUserEntry(&s)
            fx += finishModelEntry(&s, interrupted: s.talk.reply == .discarding)
            s.talk.replyEnded()
            if s.status == .replyInterrupted { s.status = nil }
        case .interrupted:
            if var typed = s.typedTurn, !typed.afterReply, !typed.echoStarted {
                // Typed just as a reply began (the session saw the reply first): that reply is what it cut, and
                // the turn's own echo and answer are still to come.
                typed.afterReply = true
                s.typedTurn = typed
            }
            fx += finishModelEntry(&s, interrupted: true)
            s.talk.replyInterrupted()
        case .toolCall(let calls):
            // A NON_BLOCKING call lets the model talk on; only a blocking one holds the turn open.
            if calls.contains(where: { s.toolPolicy.behavior(of: $0.name) == .blocking }) { s.talk.replyStarted() }
            fx += toolCalls(&s, calls, now: now)
        case .toolCallCancellation(let ids):
            fx += cancelToolCalls(&s, ids, now: now)
        case .goAway(let left):
            s.goAwayDeadline = now + left.inSeconds
            fx += system(&s, "the server will close this connection in \(ProtobufDuration.format(left)); moving to a new one at the next pause")
        case .resumptionUpdate(let resumable):
            if resumable { fx.append(.saveResumeHandle) }
        case .usage(let u):
            fx += usage(&s, u, now: now)
        case .connectionClosed:
            // Open mic keeps streaming: the session holds the audio until the next connection is live.
            s.link = .closed
            // A reply in progress is cut: its rest never comes, and the next reply is a record of its own.
            fx += finishModelEntry(&s, interrupted: true)
            s.talk.replyInterrupted()
        case .reconnecting(let attempt, let delay, let after):
            s.link = .retrying(at: now + delay)
            if attempt == 1, s.sessionStartedAt == nil {
                fx += system(&s, "cannot reach the Live service (\(after.codeAndReason): \(after.message)) — retrying until it answers (r: now); typed messages wait in a queue", error: true)
            } else if attempt == 1 {
                fx += system(&s, "connection lost (\(after.codeAndReason): \(after.message)) — retrying until it is back (r: now); typed messages wait in a queue", error: true)
            }
        case .textQueued(let id, let text, let waiting):
            s.latency.forget()
            if s.offline {
                fx += system(&s, "offline: queued (\(waiting) waiting) — sent when the connection is back")
            } else {
                fx += system(&s, "queued (\(waiting) waiting) — sent once the last question has its answer")
            }
            if s.typedTurn?.text == text {
                // It did not go out: the echo and answer still due are the earlier turn's.
                (s.typedTurn, s.unanswered) = (s.typedBefore, s.unansweredBefore)
            }
            s.queuedTexts[id] = text
            fx.append(.record(.queued(id: id, text: text)))
        case .queuedTextSent(let ids):
            // A queued message's turn starts when it goes out, not when it was typed during the outage.
            s.latency.userFinished(at: now)
            queuedTextSent(&s, ids)
            fx += ids.map { .record(.sent(id: $0)) }
        case .textNotQueued(_, let limit):
            fx += system(&s, "offline: \(limit) messages already wait — this one was not queued; send it again later", error: true)
        case .turnResent(let text):
            s.latency.resent(at: now)
            fx += turnResent(&s, typed: text)
        case .replyStalled(let finding, let recovery):
            if recovery == .nudge { turnNudged(&s) }
            fx += system(&s, SessionLines.stall(finding, recovery), error: true)
        case .freshSession(let cause):
            fx += system(&s, SessionLines.freshSession(cause))
        case .protocolError(let detail):
            fx += system(&s, "ignored a malformed message from the server (\(detail))", error: true)
        case .heldAudioDropped(let bytes):
            fx += system(&s, "the connection is down: \(bytes / 32) ms of mic audio were not sent; the microphone is paused until it is back", error: true)
        case .contextChanged(let change, let route):
            fx += contextChanged(&s, change, via: route)
            fx += contextSettled(&s, change, applied: true, now: now)
        case .contextRefused(let change, let refusal):
            fx += system(&s, "the context was not changed (\(change.summary)): \(refusal)", error: refusal != .unchanged)
            fx += contextSettled(&s, change, applied: false, now: now)
        case .failed(let reason):
            s.latency.forget()
            s.link = .failed(reason: reason.codeAndReason)
            if s.talk.micIsOpen { fx += stopMic(&s, now: now) }
            s.talk.cancelGesture()
            fx += system(&s, "disconnected: \(reason.codeAndReason): \(reason.message) — \(reason.hint)", error: true)
        case .closed:
            if case .failed = s.link {} else { s.link = .ended }
        }
        return fx
    }

    /// Asks the session to change the instruction, tools and/or voice and keep the conversation; the outcome
    /// comes back as `LiveEvent.contextChanged` or `.contextRefused`.
    static func changeContext(_ s: inout AppState, _ change: ContextChange) -> [Effect] {
        let duringReply = s.talk.reply != .idle
        return system(&s, "changing \(change.summary)…") + [.live(.changeContext(change, duringReply: duringReply))]
    }

    /// A context change took effect: said in the transcript and recorded with what changed and when.
    static func contextChanged(_ s: inout AppState, _ change: ContextChange, via route: ContextChange.Route) -> [Effect] {
        if let voice = change.voice {
            s.voice = voice
            s.ui.header.voice = voice
        }
        let how = switch route {
        case .contextUpdate: "the conversation continues"
        case .resume: "resumed on a new connection, the conversation continues"
        case .newSession: "new session, seeded with the transcript so far"
        }
        return system(&s, "changed \(change.summary) — \(how)") + [.record(.context(change, via: route))]
    }

    /// A connection became live: the first, a resumed one, or a new session.
    static func connected(_ s: inout AppState, resumed: Bool, now: Double) -> [Effect] {
        var fx: [Effect] = []
        let first = s.sessionStartedAt == nil
        s.link = .live
        s.goAwayDeadline = nil
        if first { s.sessionStartedAt = now }
        if !s.carryRecorded, s.usage.ledger.carried.turns > 0 {
            // The budget is per conversation: this part's transcript says what the earlier parts spent.
            s.carryRecorded = true
            fx.append(.record(.usageCarried(s.usage.ledger.carried)))
        }
        if let voice = s.pendingVoice {
            s.pendingVoice = nil
            s.voice = voice
            s.ui.header.voice = voice
            fx += system(&s, resumed
                ? "voice changed to \(voice) — the conversation continues"
                : "voice changed to \(voice) — new session, seeded with the transcript so far")
            fx.append(.record(.voice(voice, resumed: resumed)))
            // A new session: the Live session seeds it with the conversation so far itself.
        } else if !first {
            fx += system(&s, resumed
                ? "reconnected — conversation resumed"
                : "reconnected — new session, seeded with the transcript so far")
            fx.append(.record(.reconnect(resumed: resumed)))
        }
        if let mode = s.talk.applyPendingMode() {
            s.ui.header.pushToTalk = AppState.pttDisplay(mode: mode, kitty: s.talk.gesture.mode == .kitty)
            fx += system(&s, mode == .open ? "open mic: just talk; Space mutes" : "push-to-talk: hold or tap Space to talk")
        }
        fx += openMicIfWanted(&s)
        return fx
    }
}
