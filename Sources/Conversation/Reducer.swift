import Foundation
import Live
import TUI

/// The conversation logic: `(State, Event) -> [Effect]`, pure and testable without sockets, terminals or
/// sound cards. `now` is seconds on the app's `TimeSource`.
package enum Reducer {
    package static func reduce(_ s: inout AppState, _ event: AppEvent, now: Double) -> [Effect] {
        let before = (reply: s.talk.reply, voice: s.voice)
        var fx: [Effect] = []
        switch event {
        case .input(let input): fx = handleInput(&s, input, now: now)
        case .live(let e): fx = handleLive(&s, e, now: now)
        case .tick:
            fx = s.talk.tick(now: now)
            if let a = s.talk.gestureTick(now: now) { fx += talk(&s, a, now: now) }
        case .micClosed(let id):
            fx = s.talk.micClosed(id: id)
        case .replyAudioStarted(let t):
            timeUserTurnIfOpenMic(&s)
            // The first chunk after a cut belongs to the reply being dropped, not to the turn that cut it.
            if s.talk.reply != .discarding, let ms = s.latency.replyByte(at: t) {
                s.ui.header.latencyMs = Int(ms.rounded())
            }
        case .replyAudible(let t):
            // The header shows what the user felt: end of speech → first sound, once the turn has one.
            if let ms = s.latency.audible(at: t) { s.ui.header.latencyMs = ms }
        case .confirmTool(let id, let name, let detail):
            fx = confirmTool(&s, id: id, name: name, detail: detail)
        case .toolFinished(let id, let outcome, let result):
            fx = toolFinished(&s, id: id, outcome: outcome, result: result, now: now)
        case .toolPartial(let id, let result):
            if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }) { s.ui.toolLog.calls[i].partials.append(result) }
        case .audioNotice(let text):
            fx = system(&s, text, error: true)
        case .screenSize(let size):
            s.ui.screen = size
        case .scrolled(let position):
            s.ui.transcript.scroll = position
        case .exported(let result):
            switch result {
            case .success(let path): s.status = .exported(path: path)
            case .failure(let f): s.status = .exportFailed(f.message)
            }
        case .suspending:
            // Nothing may keep listening while the process is stopped: the mic closes and its follow-up
            // goes out now.
            if s.talk.micIsOpen { fx = s.talk.closeMic(now: now, muted: s.talk.mode == .open) }
            fx += s.talk.settleClosing()
            s.talk.cancelGesture()
            fx.append(.suspend)
        case .quitRequested:
            fx = quit(&s, now: now)
        case .vision(let e):
            fx = handleVision(&s, e, now: now)
        case .recording(let e):
            fx = handleRecording(&s, e)
        case .instructionEdited(let outcome):
            fx = instructionEdited(&s, outcome)
        case .changeContext(let change):
            fx = changeContext(&s, change)
        }
        if case .latencyStats = s.ui.overlay { s.ui.overlay = .latencyStats(s.latency.stats) }
        fx += speakerCommands(from: before.reply, to: s.talk.reply)
        if s.voice != before.voice { fx.append(.rememberVoice(s.voice)) }
        fx += visionCommands(&s)
        refreshContext(&s)
        refreshHeader(&s, now: now)
        return fx
    }

    /// The speaker is told when the reply state changes; it never works it out for itself.
    static func speakerCommands(from old: TalkState.Reply, to new: TalkState.Reply) -> [Effect] {
        guard old != new else { return [] }
        var fx: [Effect] = []
        if new == .discarding { fx.append(.speaker(.cutReply)) }
        if old == .discarding { fx.append(.speaker(.acceptReplies)) }
        if (old == .idle) != (new == .idle) { fx.append(.speaker(.modelAnswering(new != .idle))) }
        return fx
    }

    /// Quitting: the mic is released first and whatever is on screen is saved, a reply in progress included.
    static func quit(_ s: inout AppState, now: Double) -> [Effect] {
        guard !s.quitting else { return [] }
        s.quitting = true
        var fx: [Effect] = []
        if s.talk.micIsOpen { fx += s.talk.closeMic(now: now) }
        fx += s.talk.settleClosing()
        fx += finishUserEntry(&s)
        fx += finishModelEntry(&s, interrupted: s.talk.reply != .idle)
        for pending in s.confirmations { fx.append(.answerConfirmation(id: pending.id, yes: false)) }
        s.confirmations = []
        fx.append(.quit)
        return fx
    }

    // MARK: - Talking

    /// Push-to-talk gestures become mic changes here, and only here.
    static func talk(_ s: inout AppState, _ action: PushToTalk.Action, now: Double) -> [Effect] {
        guard s.talk.mode == .ptt else { return [] }
        switch action {
        case .startTalking:
            guard !s.talk.micIsOpen else { return [] }
            guard !s.offline else {
                s.talk.cancelGesture()
                s.status = .offlinePushToTalk
                return []
            }
            guard s.audioAvailable else {
                s.talk.cancelGesture()
                s.status = .noAudio
                return []
            }
            guard !s.usage.overBudget else {
                s.talk.cancelGesture()
                askBudget(&s)
                return []
            }
            s.latency.userStarted()
            if s.talk.reply != .idle, let m = s.modelEntry {
                // Talking over the model interrupts it (START_OF_ACTIVITY_INTERRUPTS).
                s.ui.transcript.update(m) { $0.interrupted = true }
            }
            return s.talk.openMic()
        case .stopTalking:
            guard s.talk.micIsOpen else { return [] }
            s.latency.userFinished(at: now)
            return stopMic(&s, now: now)
        }
    }

    static func stopMic(_ s: inout AppState, now: Double, muted: Bool = false) -> [Effect] {
        return s.talk.closeMic(now: now, muted: muted)
    }

    /// Opens the mic for open-mic mode once the connection is live (unless muted or soundless).
    static func openMicIfWanted(_ s: inout AppState) -> [Effect] {
        guard s.talk.mode == .open, s.talk.mic == .closed, s.audioAvailable, s.connected, !s.usage.overBudget else { return [] }
        return s.talk.openMic()
    }

    static func sendText(_ s: inout AppState, _ text: String, now: Double) -> [Effect] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        if let refusal = TurnSize(text: trimmed, model: s.ui.header.model).refusal { return system(&s, refusal, error: true) }
        // Behind turns in the session's queue it waits too: the reply in progress goes on, uncut.
        let waits = !s.queuedTexts.isEmpty
        let overReply = s.talk.reply != .idle && !waits
        var fx = waits ? [] : finishModelEntry(&s, interrupted: overReply)
        fx += finishUserEntry(&s)
        if overReply { s.talk.cutReply() }
        s.ui.transcript.append(.user, trimmed)
        (s.typedBefore, s.unansweredBefore) = (s.typedTurn, s.unanswered)
        s.typedTurn = TypedTurn(text: trimmed, afterReply: overReply)
        s.unanswered = trimmed
        s.latency.userFinished(at: now)
        s.ui.transcript.scroll = nil
        return fx + [.record(.line(speaker: .user, text: trimmed, interrupted: false)), .live(.sendText(trimmed))]
    }

    static func chooseVoice(_ s: inout AppState, _ name: String) -> [Effect] {
        guard name != s.voice else { return [] }
        s.pendingVoice = name
        let waiting = s.talk.reply != .idle
        return system(&s, waiting ? "switching to \(name) when this reply ends…" : "switching to \(name)…")
            + [.live(.switchVoice(name, duringReply: waiting))]
    }

    // MARK: - Transcript

    static func appendUser(_ s: inout AppState, _ text: String, finished: Bool) -> [Effect] {
        s.userWords.append(text)
        let clean = s.userWords.text
        if let id = s.userEntry {
            // The final transcript replaces the fast partial one.
            s.ui.transcript.update(id) { e in
                e.interim = clean
                if !text.isEmpty { e.partial = "" }
            }
        } else if !clean.isEmpty {
            s.userEntry = s.ui.transcript.append(.user, "", interim: clean)
        }
        return finished ? finishUserEntry(&s) : []
    }

    static func appendModel(_ s: inout AppState, _ text: String, finished: Bool, now: Double) -> [Effect] {
        if let typed = s.typedTurn {
            // The tail of a reply the typed turn cut off: it is being dropped, so it is not shown either.
            if typed.afterReply { return [] }
            // Output before any echo may be an earlier reply the turn is about to cut: its echo is still due.
            if typed.echoStarted { s.typedTurn = nil }
        }
        var fx = finishUserEntry(&s)
        s.unanswered = nil
        timeUserTurnIfOpenMic(&s)
        if !text.isEmpty { s.latency.transcript(at: now) }
        s.talk.replyStarted()
        s.thoughtEntry = nil
        s.modelWords.append(text)
        let clean = s.modelWords.text
        if let id = s.modelEntry {
            s.ui.transcript.update(id) { $0.interim = clean }
        } else if !clean.isEmpty {
            s.modelEntry = s.ui.transcript.append(.model, "", interim: clean, interrupted: s.talk.reply == .discarding)
        }
        if finished { fx += finishModelEntry(&s, interrupted: false) }
        return fx
    }

    /// In open mic the end of speech is only known from the server: the last time it transcribed the user.
    static func timeUserTurnIfOpenMic(_ s: inout AppState) {
        guard s.talk.mode == .open, s.latency.current == nil, let heard = s.lastHeardAt else { return }
        s.latency.userFinished(at: heard)
        s.lastHeardAt = nil
    }

    static func finishUserEntry(_ s: inout AppState) -> [Effect] {
        s.userWords.reset()
        guard let id = s.userEntry else { return [] }
        s.userEntry = nil
        var text = ""
        s.ui.transcript.update(id) { e in
            e.text += e.interim.isEmpty ? e.partial : e.interim
            e.interim = ""
            e.partial = ""
            text = e.text.trimmingCharacters(in: .whitespaces)
            e.text = text
        }
        if !text.isEmpty { s.unanswered = text }
        return [.record(.line(speaker: .user, text: text, interrupted: false))]
    }

    /// The session sent an unanswered turn again on a new connection (`typed`: its text; nil for a spoken
    /// turn). The service transcribes it again (a typed turn's echo, a spoken turn's audio): that repeat is
    /// absorbed, so the question is one line and one record, and the resend is a note on it.
    static func turnResent(_ s: inout AppState, typed: String?) -> [Effect] {
        var question = typed ?? s.unanswered
        if let typed {
            // Several may be sent again, one per answer: each one's echo comes when it goes out.
            s.typedTurn = TypedTurn(text: typed, afterReply: false)
            s.unanswered = typed
        } else if let id = s.userEntry {
            // Cut off while it was being transcribed: the repeat transcribes the whole turn again, so it
            // replaces the partial text instead of running on after it.
            s.userWords.reset()
            s.ui.transcript.update(id) { $0.interim = ""; $0.partial = "" }
            question = nil
        } else if let text = s.unanswered {
            s.typedTurn = TypedTurn(text: text, afterReply: s.typedTurn?.afterReply ?? false)
        }
        s.ui.transcript.append(.system, "your last turn had no answer yet: sent again on the new connection")
        return [.record(.resent(question))]
    }

    /// The reply watchdog asked the unanswered turn again on the same connection: its echo comes once more
    /// (a spoken turn's audio is transcribed again), and is absorbed like the first.
    static func turnNudged(_ s: inout AppState) {
        guard s.userEntry == nil, let text = s.unanswered else { return }
        if var typed = s.typedTurn, typed.text == text {
            typed.expectAnotherEcho()
            s.typedTurn = typed
        } else {
            s.typedTurn = TypedTurn(text: text, afterReply: false)
        }
    }

    /// Queued typed turns went out: their echo comes now, so they are the pending typed turn from here on.
    static func queuedTextSent(_ s: inout AppState, _ ids: [Int]) {
        let texts = ids.compactMap { s.queuedTexts.removeValue(forKey: $0) }
        guard !texts.isEmpty else { return }
        let text = texts.joined(separator: " ")
        s.typedTurn = TypedTurn(text: text, afterReply: false)
        s.unanswered = text
    }

    static func finishModelEntry(_ s: inout AppState, interrupted: Bool) -> [Effect] {
        s.modelWords.reset()
        guard let id = s.modelEntry else { return [] }
        s.modelEntry = nil
        var text = ""
        var cut = interrupted
        s.ui.transcript.update(id) { e in
            e.text += e.interim
            e.interim = ""
            e.text = e.text.trimmingCharacters(in: .whitespaces)
            if interrupted { e.interrupted = true }
            cut = e.interrupted
            text = e.text
        }
        return [.record(.line(speaker: .model, text: text, interrupted: cut))]
    }

    static func system(_ s: inout AppState, _ text: String, error: Bool = false) -> [Effect] {
        s.ui.transcript.append(error ? .error : .system, text)
        return [.record(.line(speaker: error ? .error : .system, text: text, interrupted: false))]
    }

    package static func refreshHeader(_ s: inout AppState, now: Double) {
        s.ui.header.sessionAge = s.sessionStartedAt.map { Int(now - $0) }
        s.ui.header.goAwaySeconds = s.goAwayDeadline.map { max(0, Int(($0 - now).rounded(.up))) }
        s.ui.header.connection = s.link.header(now: now)
        s.ui.meters.micMuted = s.talk.isMuted
        s.ui.meters.talking = s.talk.mode == .ptt && s.talk.micIsOpen
        s.ui.meters.echoProtection = s.talk.mode == .open ? s.echoProtection : nil
        refreshVisionHeader(&s)
    }
}
