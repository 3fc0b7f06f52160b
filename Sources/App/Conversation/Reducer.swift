import Foundation
import Live
import TUI

/// The conversation logic: `(State, Event) -> [Effect]`, pure and testable without sockets, terminals or
/// sound cards. `now` is seconds on a monotonic clock.
enum Reducer {
    static func reduce(_ s: inout AppState, _ event: AppEvent, now: Double) -> [Effect] {
        var fx: [Effect] = []
        switch event {
        case .input(let input): fx = handleInput(&s, input, now: now)
        case .live(let e): fx = handleLive(&s, e, now: now)
        case .tick:
            if let a = s.ptt.tick(now: now) { fx += talk(&s, a, now: now) }
        case .replyAudioStarted:
            if let start = s.userTurnEndedAt {
                s.ui.header.latencyMs = max(0, Int(((now - start) * 1000).rounded()))
                s.userTurnEndedAt = nil
            }
        case .confirmTool(let id, let name, let detail):
            if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }) { s.ui.toolLog.calls[i].state = .pending }
            s.confirmations.append((id, name, detail))
            showNextConfirmation(&s)
        case .toolFinished(let id, let outcome, let result):
            if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }), [.running, .pending].contains(s.ui.toolLog.calls[i].state) {
                s.ui.toolLog.calls[i].state = outcome == .ok ? .ok : outcome == .denied ? .denied : .error
                s.ui.toolLog.calls[i].result = result
                s.ui.toolLog.calls[i].duration = s.toolStarts[id].map { now - $0 }
                let c = s.ui.toolLog.calls[i]
                fx.append(.record(.tool(id: id, name: c.name, arguments: c.arguments, state: c.state.rawValue, result: result, duration: c.duration)))
            }
        case .audioNotice(let text):
            fx += system(&s, text, error: true)
        case .suspending:
            _ = s.ptt.cancel()
            if s.micOpen { fx += stopMic(&s) }
        case .quitRequested:
            s.quitting = true
            if s.micOpen { fx += stopMic(&s) }
            // What is on screen is saved: a reply cut short by quitting is recorded, marked interrupted.
            fx += finishUserEntry(&s)
            fx += finishModelEntry(&s, interrupted: true)
            fx.append(.quit)
        }
        refreshHeader(&s, now: now)
        return fx
    }

    // MARK: - Keys

    static func handleInput(_ s: inout AppState, _ input: InputEvent, now: Double) -> [Effect] {
        switch input {
        case .kittyFlags:
            s.ptt.mode = .kitty
            s.ui.header.pushToTalk = AppState.pttDisplay(mode: s.mode, kitty: true)
            return []
        case .deviceAttributes, .focus:
            return []
        case .paste(let text):
            if s.ui.input == nil { s.ui.input = LineEditor() }
            s.ui.input?.insert(text)
            return []
        case .key(let k):
            return handleKey(&s, k, now: now)
        }
    }

    static func handleKey(_ s: inout AppState, _ k: KeyEvent, now: Double) -> [Effect] {
        // Popups first, then the input line, then the tool log, then the key map.
        if let overlay = s.ui.overlay {
            guard k.kind != .release else { return [] }
            switch overlay {
            case .voiceMenu(var menu):
                switch menu.handle(k) {
                case .none, .changed: s.ui.overlay = .voiceMenu(menu)
                case .close: s.ui.overlay = nil
                case .choose(let name):
                    s.ui.overlay = nil
                    return chooseVoice(&s, name)
                }
            case .help, .message:
                s.ui.overlay = nil
            case .confirm(var model):
                let answer = model.handle(k, screen: s.ui.screen)
                if answer == .quit {
                    // Ctrl-C: no to every waiting call, then quit; a thousand popups must not stand in the way.
                    s.ui.overlay = nil
                    let denied = s.confirmations.map { Effect.answerConfirmation(id: $0.id, yes: false) }
                    s.confirmations.removeAll()
                    return denied + reduce(&s, .quitRequested, now: now)
                }
                if answer == .changed { s.ui.overlay = .confirm(model) }
                guard answer == .yes || answer == .no else { return [] }
                s.ui.overlay = nil
                guard !s.confirmations.isEmpty else { return [] }
                let asked = s.confirmations.removeFirst()
                if answer == .yes, let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == asked.id }) {
                    s.ui.toolLog.calls[i].state = .running
                    s.toolStarts[asked.id] = now
                }
                showNextConfirmation(&s)
                return [.answerConfirmation(id: asked.id, yes: answer == .yes)]
            }
            return []
        }
        if var editor = s.ui.input {
            guard k.kind != .release else { return [] }
            switch editor.handle(k) {
            case .none, .edited:
                s.ui.input = editor
            case .leave:
                s.ui.input = nil
            case .submit(let text):
                s.ui.input = editor
                return sendText(&s, text, now: now)
            }
            return []
        }
        if s.ui.toolLog.focused, k.kind != .release {
            switch s.ui.toolLog.handle(k) {
            case .handled: return []
            case .leave: s.ui.toolLog.focused = false; return []
            case .none: break
            }
        }
        // The key map ignores releases; push-to-talk needs them, so look the key up as a press.
        guard let command = s.keyMap.command(for: KeyEvent(k.key, k.modifiers)) else { return [] }
        if command == .pushToTalk { return space(&s, k, now: now) }
        guard k.kind != .release else { return [] }
        switch command {
        case .pushToTalk:
            return []
        case .voiceMenu:
            var fx: [Effect] = []
            if let a = s.ptt.cancel() { fx += talk(&s, a, now: now) }
            s.ui.overlay = .voiceMenu(VoiceMenu(voices: Voice.all.map { VoiceOption(name: $0.name, style: $0.style) }, current: s.voice))
            return fx
        case .toggleMicMode:
            let next: Config.Mode = s.mode == .ptt ? .open : .ptt
            var fx: [Effect] = []
            if let a = s.ptt.cancel() { fx += talk(&s, a, now: now) }
            if s.micOpen { fx += stopMic(&s) }
            s.pendingMode = next
            fx += system(&s, next == .open
                ? "switching to open mic: the server will detect speech (m to switch back)…"
                : "switching to push-to-talk: hold or tap Space to talk…")
            fx.append(.switchMode(next))
            return fx
        case .textInput:
            s.ui.input = LineEditor()
            return []
        case .toolLogFocus:
            s.ui.toolLog.focused = true
            s.ui.toolLog.collapsed = false
            if s.ui.toolLog.selected == nil, !s.ui.toolLog.calls.isEmpty { s.ui.toolLog.selected = s.ui.toolLog.calls.count - 1 }
            return []
        case .help:
            s.ui.overlay = .help
            return []
        case .quit:
            return reduce(&s, .quitRequested, now: now)
        case .interruptOrQuit:
            if s.modelResponding && !s.discardingReply {
                s.discardingReply = true
                if let m = s.modelEntry { s.ui.transcript.update(m) { $0.interrupted = true } }
                s.ui.status = "reply interrupted — Ctrl-C again to quit"
                return [.interruptPlayback]
            }
            return reduce(&s, .quitRequested, now: now)
        case .scrollPageUp: return [.scroll(.pageUp)]
        case .scrollPageDown: return [.scroll(.pageDown)]
        case .scrollTop: return [.scroll(.top)]
        case .scrollBottom: return [.scroll(.bottom)]
        case .scrollLineUp: return [.scroll(.lines(-1))]
        case .scrollLineDown: return [.scroll(.lines(1))]
        case .export:
            return [.export]
        }
    }

    /// Space: push-to-talk, or mute/unmute in open-mic mode.
    static func space(_ s: inout AppState, _ k: KeyEvent, now: Double) -> [Effect] {
        if s.mode == .open {
            guard k.kind == .press else { return [] }
            s.micMuted.toggle()
            s.ui.meters.micMuted = s.micMuted
            s.micOpen = !s.micMuted && s.connected
            return [.setOpenMic(s.micOpen)]
        }
        guard let action = s.ptt.handle(k, now: now) else { return [] }
        return talk(&s, action, now: now)
    }

    static func talk(_ s: inout AppState, _ action: PushToTalk.Action, now: Double) -> [Effect] {
        guard s.mode == .ptt else { return [] }
        switch action {
        case .startTalking:
            guard !s.micOpen else { return [] }
            guard s.audioAvailable else {
                _ = s.ptt.cancel()
                s.ui.status = "no audio: press Tab to type instead"
                return []
            }
            s.micOpen = true
            s.ui.meters.talking = true
            s.userTurnEndedAt = nil
            if s.modelResponding, let m = s.modelEntry {
                // Talking over the model interrupts it (START_OF_ACTIVITY_INTERRUPTS).
                s.ui.transcript.update(m) { $0.interrupted = true }
            }
            return [.startTalking]
        case .stopTalking:
            guard s.micOpen else { return [] }
            s.userTurnEndedAt = now
            return stopMic(&s)
        }
    }

    static func stopMic(_ s: inout AppState) -> [Effect] {
        s.micOpen = false
        s.ui.meters.talking = false
        return s.mode == .ptt ? [.stopTalking] : [.setOpenMic(false)]
    }

    static func sendText(_ s: inout AppState, _ text: String, now: Double) -> [Effect] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        var fx = finishModelEntry(&s, interrupted: s.modelResponding)
        fx += finishUserEntry(&s)
        s.ui.transcript.append(.user, trimmed)
        s.typedTurnPending = true
        s.userTurnEndedAt = now
        s.ui.transcript.scroll = nil
        return fx + [.record(.line(speaker: "user", text: trimmed, interrupted: false)), .sendText(trimmed)]
    }

    static func chooseVoice(_ s: inout AppState, _ name: String) -> [Effect] {
        guard name != s.voice else { return [] }
        s.pendingVoice = name
        let waiting = s.modelResponding
        return system(&s, waiting ? "switching to \(name) when this reply ends…" : "switching to \(name)…") + [.switchVoice(name)]
    }

    // MARK: - Live events

    static func handleLive(_ s: inout AppState, _ e: LiveEvent, now: Double) -> [Effect] {
        var fx: [Effect] = []
        switch e {
        case .connecting(_, let resuming):
            s.connected = false
            s.reconnectAt = nil
            s.ui.header.connection = resuming || s.sessionStartedAt != nil ? .resuming(inSeconds: nil) : .connecting
        case .setupComplete(let resumed):
            let first = s.sessionStartedAt == nil
            s.connected = true
            s.reconnectAt = nil
            s.goAwayDeadline = nil
            s.ui.header.connection = .live
            if first { s.sessionStartedAt = now }
            if let voice = s.pendingVoice {
                s.pendingVoice = nil
                s.voice = voice
                s.ui.header.voice = voice
                fx += system(&s, resumed
                    ? "voice changed to \(voice) — the conversation continues"
                    : "voice changed to \(voice) — new session, seeded with the transcript so far")
                fx.append(.record(.voice(voice, resumed: resumed)))
                if !resumed { fx.append(.seedTranscript) }
            } else if !first {
                fx += system(&s, resumed
                    ? "reconnected — conversation resumed"
                    : "reconnected — new session (the old one could not be resumed), seeded with the transcript so far")
                fx.append(.record(.reconnect(resumed: resumed)))
                if !resumed { fx.append(.seedTranscript) }
            }
            if let mode = s.pendingMode {
                s.pendingMode = nil
                s.mode = mode
                s.ui.header.pushToTalk = AppState.pttDisplay(mode: mode, kitty: s.ptt.mode == .kitty)
                fx += system(&s, mode == .open ? "open mic: just talk; Space mutes" : "push-to-talk: hold or tap Space to talk")
            }
            if s.mode == .open, !s.micMuted, s.audioAvailable, !s.micOpen {
                s.micOpen = true
                fx.append(.setOpenMic(true))
            }
        case .audio:
            break
        case .inputTranscription(let text, let finished):
            if s.typedTurnPending {
                if finished { s.typedTurnPending = false }
                break
            }
            if s.modelResponding, s.mode == .open { fx += finishModelEntry(&s, interrupted: true) }
            fx += appendUser(&s, text, finished: finished)
        case .outputTranscription(let text, let finished):
            fx += appendModel(&s, text, finished: finished)
        case .modelText(let text):
            fx += appendModel(&s, text, finished: false)
        case .generationComplete:
            break
        case .turnComplete:
            s.typedTurnPending = false
            fx += finishUserEntry(&s)
            fx += finishModelEntry(&s, interrupted: s.discardingReply)
            s.modelResponding = false
            s.discardingReply = false
            if s.ui.status == "reply interrupted — Ctrl-C again to quit" { s.ui.status = nil }
        case .interrupted:
            fx += finishModelEntry(&s, interrupted: true)
            s.modelResponding = false
        case .toolCall(let calls):
            s.modelResponding = true
            for c in calls {
                s.ui.toolLog.calls.append(ToolCallEntry(id: c.id, name: c.name, server: s.toolServers[c.name], arguments: c.args.compactText, state: .running))
                s.toolStarts[c.id] = now
            }
            fx.append(.runTools(calls))
        case .toolCallCancellation(let ids):
            if let shown = s.confirmations.first, ids.contains(shown.id) { s.ui.overlay = nil }
            s.confirmations.removeAll { ids.contains($0.id) }
            showNextConfirmation(&s)
            for id in ids {
                if let i = s.ui.toolLog.calls.firstIndex(where: { $0.id == id }), [.pending, .running].contains(s.ui.toolLog.calls[i].state) {
                    s.ui.toolLog.calls[i].state = .cancelled
                    s.ui.toolLog.calls[i].duration = s.toolStarts[id].map { now - $0 }
                    let c = s.ui.toolLog.calls[i]
                    fx.append(.record(.tool(id: id, name: c.name, arguments: c.arguments, state: "cancelled", result: nil, duration: c.duration)))
                }
            }
            fx.append(.cancelTools(ids))
        case .goAway(let left):
            s.goAwayDeadline = now + Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            fx += system(&s, "the server will close this connection in \(ProtobufDuration.format(left)); moving to a new one at the next pause")
        case .resumptionUpdate:
            break
        case .usage(let u):
            if let t = u.totalTokenCount { s.tokens += t }
            s.ui.header.tokens = s.tokens
            fx.append(.record(.usage(u)))
        case .connectionClosed:
            s.connected = false
            if s.micOpen, s.mode == .open { s.micOpen = false }
        case .reconnecting(let attempt, let delay, let after):
            s.connected = false
            s.reconnectAt = now + delay
            fx += system(&s, "connection lost (\(after.description)); reconnecting, attempt \(attempt)", error: true)
        case .protocolError(let detail):
            fx += system(&s, "ignored a malformed message from the server (\(detail))", error: true)
        case .heldAudioDropped(let bytes):
            fx += system(&s, "the connection was down too long: \(bytes / 32) ms of the oldest mic audio could not be kept", error: true)
        case .failed(let reason):
            s.connected = false
            s.reconnectAt = nil
            s.ui.header.connection = .failed(reason: reason.reason.isEmpty ? "code \(reason.code)" : reason.reason)
            if s.micOpen { fx += stopMic(&s) }
            _ = s.ptt.cancel()
            fx += system(&s, "disconnected: \(reason.description)", error: true)
        case .closed:
            s.connected = false
        }
        return fx
    }

    /// Shows the first waiting confirmation unless another popup is up.
    static func showNextConfirmation(_ s: inout AppState) {
        if case .confirm(var shown)? = s.ui.overlay {
            shown.queued = max(0, s.confirmations.count - 1)
            s.ui.overlay = .confirm(shown)
            return
        }
        guard s.ui.overlay == nil, let next = s.confirmations.first else { return }
        s.ui.overlay = .confirm(ConfirmModel(
            title: "Gemini wants to run \(next.name)", question: "Run this? y = yes, n or Enter = no", detail: next.detail,
            queued: s.confirmations.count - 1))
    }

    static func appendUser(_ s: inout AppState, _ text: String, finished: Bool) -> [Effect] {
        if let id = s.userEntry {
            s.ui.transcript.update(id) { $0.interim += text }
        } else if !text.isEmpty {
            s.userEntry = s.ui.transcript.append(.user, "", interim: text)
        }
        return finished ? finishUserEntry(&s) : []
    }

    static func appendModel(_ s: inout AppState, _ text: String, finished: Bool) -> [Effect] {
        s.typedTurnPending = false
        var fx = finishUserEntry(&s)
        s.modelResponding = true
        if let id = s.modelEntry {
            s.ui.transcript.update(id) { $0.interim += text }
        } else if !text.isEmpty {
            s.modelEntry = s.ui.transcript.append(.model, "", interim: text, interrupted: s.discardingReply)
        }
        if finished { fx += finishModelEntry(&s, interrupted: false) }
        return fx
    }

    static func finishUserEntry(_ s: inout AppState) -> [Effect] {
        guard let id = s.userEntry else { return [] }
        s.userEntry = nil
        var text = ""
        s.ui.transcript.update(id) { e in
            e.text += e.interim
            e.interim = ""
            text = e.text.trimmingCharacters(in: .whitespaces)
            e.text = text
        }
        return [.record(.line(speaker: "user", text: text, interrupted: false))]
    }

    static func finishModelEntry(_ s: inout AppState, interrupted: Bool) -> [Effect] {
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
        return [.record(.line(speaker: "model", text: text, interrupted: cut))]
    }

    static func system(_ s: inout AppState, _ text: String, error: Bool = false) -> [Effect] {
        s.ui.transcript.append(error ? .error : .system, text)
        return [.record(.line(speaker: error ? "error" : "system", text: text, interrupted: false))]
    }

    static func refreshHeader(_ s: inout AppState, now: Double) {
        s.ui.header.sessionAge = s.sessionStartedAt.map { Int(now - $0) }
        s.ui.header.goAwaySeconds = s.goAwayDeadline.map { max(0, Int(($0 - now).rounded(.up))) }
        if let at = s.reconnectAt, case .resuming = s.ui.header.connection {
            s.ui.header.connection = .resuming(inSeconds: max(0, Int((at - now).rounded(.up))))
        } else if let at = s.reconnectAt, !s.connected {
            s.ui.header.connection = .resuming(inSeconds: max(0, Int((at - now).rounded(.up))))
        }
    }
}
