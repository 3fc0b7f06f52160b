import Live
import TUI

extension Reducer {
    static func handleInput(_ s: inout AppState, _ input: InputEvent, now: Double) -> [Effect] {
        switch input {
        case .kittyFlags:
            s.talk.useKeyReleases()
            s.ui.header.pushToTalk = AppState.pttDisplay(mode: s.talk.mode, kitty: true)
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

    /// Popups first, then the input line, then the search line, then the tool log, then the key map.
    static func handleKey(_ s: inout AppState, _ k: KeyEvent, now: Double) -> [Effect] {
        if k == .ctrl("z") { return reduce(&s, .suspending, now: now) }
        if let overlay = s.ui.overlay {
            guard k.kind != .release else { return [] }
            return handleOverlayKey(&s, overlay, k, now: now)
        }
        if var editor = s.ui.input {
            guard k.kind != .release else { return [] }
            if k.key == .tab, editor.wordBeforeCursor.hasPrefix("@") { return [.vision(.complete(editor.wordBeforeCursor))] }
            switch editor.handle(k) {
            case .none, .edited:
                s.ui.input = editor
            case .leave:
                s.ui.input = nil
            case .submit(let text):
                if s.usage.overBudget, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    // Nothing typed is lost: it stays in the input line until the user says to go on.
                    s.ui.input = LineEditor(text: text, history: editor.history)
                    askBudget(&s)
                    return []
                }
                s.ui.input = editor
                return submitTyped(&s, text, now: now) ?? sendText(&s, text, now: now)
            }
            return []
        }
        if s.ui.search?.editor != nil { return k.kind == .release ? [] : searchKey(&s, k) }
        if s.ui.search != nil, k.key == .escape, k.kind != .release { return leaveSearch(&s) }
        if s.ui.toolLog.focused, k.kind != .release {
            switch s.ui.toolLog.handle(k) {
            case .handled: return []
            case .leave: s.ui.toolLog.focused = false; return []
            case .none: break
            case let action: return toggleTools(&s, action)
            }
        }
        // The key map ignores releases; push-to-talk needs them, so look the key up as a press.
        guard let command = s.keyMap.command(for: KeyEvent(k.key, k.modifiers)) else { return [] }
        if command == .pushToTalk { return space(&s, k, now: now) }
        guard k.kind != .release else { return [] }
        return run(&s, command, now: now)
    }

    static func handleOverlayKey(_ s: inout AppState, _ overlay: Overlay, _ k: KeyEvent, now: Double) -> [Effect] {
        switch overlay {
        case .voiceMenu(let menu):
            return menuKey(&s, menu, k, shown: Overlay.voiceMenu, choose: chooseVoice)
        case .personaMenu(let menu):
            return menuKey(&s, menu, k, shown: Overlay.personaMenu, choose: choosePersona)
        case .help(let top):
            // The list scrolls where the screen is too short for it; any other key closes it.
            let end = OverlayView.helpMaxTop(keyMap: s.keyMap, screen: s.ui.screen)
            let page = max(1, s.ui.screen.rows - 8)
            switch k.key {
            case .up: s.ui.overlay = .help(top: max(0, top - 1))
            case .down: s.ui.overlay = .help(top: min(end, top + 1))
            case .pageUp: s.ui.overlay = .help(top: max(0, top - page))
            case .pageDown: s.ui.overlay = .help(top: min(end, top + page))
            default: s.ui.overlay = nil
            }
        case .message:
            s.ui.overlay = nil
        case .latencyStats:
            // Left open while other keys are pressed: it updates as turns are timed.
            if k.key == .escape || s.keyMap.command(for: KeyEvent(k.key, k.modifiers)) == .latencyStats { s.ui.overlay = nil }
        case .usage:
            // Like the latency view: it follows the turns until its key or Esc closes it.
            if k.key == .escape || s.keyMap.command(for: KeyEvent(k.key, k.modifiers)) == .usageStats { s.ui.overlay = nil }
        case .pathPrompt(let editor):
            return pathPromptKey(&s, editor, k)
        case .confirm(var model) where s.budgetAsking:
            switch model.handle(k, screen: s.ui.screen) {
            case .yes: return answerBudget(&s, yes: true)
            case .no: return answerBudget(&s, yes: false)
            case .quit:
                s.budgetAsking = false
                s.ui.overlay = nil
                return quit(&s, now: now)
            case .changed: s.ui.overlay = .confirm(model)
            case .none: break
            }
        case .confirm(var model):
            let answer = model.handle(k, screen: s.ui.screen)
            if answer == .quit {
                // Ctrl-C: no to every waiting call, then quit; a thousand popups must not stand in the way.
                s.ui.overlay = nil
                return quit(&s, now: now)
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

    /// A key in the voice or the persona menu: both are the same filterable list.
    static func menuKey(
        _ s: inout AppState, _ menu: VoiceMenu, _ k: KeyEvent, shown: (VoiceMenu) -> Overlay,
        choose: (inout AppState, String) -> [Effect]
    ) -> [Effect] {
        var menu = menu
        switch menu.handle(k) {
        case .none, .changed: s.ui.overlay = shown(menu)
        case .close: s.ui.overlay = nil
        case .choose(let name):
            s.ui.overlay = nil
            return choose(&s, name)
        }
        return []
    }

    static func run(_ s: inout AppState, _ command: Command, now: Double) -> [Effect] {
        switch command {
        case .pushToTalk:
            return []
        case .voiceMenu:
            var fx: [Effect] = []
            if s.talk.mode == .ptt, s.talk.micIsOpen { fx += stopMic(&s, now: now) }
            s.talk.cancelGesture()
            s.ui.overlay = .voiceMenu(VoiceMenu(voices: Voice.all.map { VoiceOption(name: $0.name, style: $0.style) }, current: s.voice))
            return fx
        case .toggleMicMode:
            let next: TalkMode = s.talk.mode == .ptt ? .open : .ptt
            var fx: [Effect] = []
            if s.talk.micIsOpen { fx += stopMic(&s, now: now) }
            s.talk.cancelGesture()
            s.talk.requestMode(next)
            fx += system(&s, next == .open
                ? "switching to open mic: the server will detect speech (m to switch back)…"
                : "switching to push-to-talk: hold or tap Space to talk…")
            fx.append(.live(.switchMode(next, duringReply: s.talk.reply != .idle)))
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
            s.ui.overlay = .help(top: 0)
            return []
        case .latencyStats:
            s.ui.overlay = .latencyStats(s.latency.stats)
            return []
        case .usageStats:
            s.ui.overlay = .usage(s.usage.table)
            return []
        case .quit:
            return quit(&s, now: now)
        case .interruptOrQuit:
            if s.talk.cutReply() {
                if let m = s.modelEntry { s.ui.transcript.update(m) { $0.interrupted = true } }
                s.status = .replyInterrupted
                return []
            }
            return quit(&s, now: now)
        case .scrollPageUp: return [.scroll(.pageUp)]
        case .scrollPageDown: return [.scroll(.pageDown)]
        case .scrollTop: return [.scroll(.top)]
        case .scrollBottom: return [.scroll(.bottom)]
        case .scrollLineUp: return [.scroll(.lines(-1))]
        case .scrollLineDown: return [.scroll(.lines(1))]
        case .export:
            return [.export]
        case .toggleThoughts:
            s.ui.transcript.setShowThoughts(!s.ui.transcript.showThoughts)
            s.status = .thoughts(shown: s.ui.transcript.showThoughts)
            return []
        case .retryNow:
            return s.offline ? [.live(.retryNow)] : []
        case .toggleSharing:
            return toggleSharing(&s)
        case .attachImage:
            s.ui.overlay = .pathPrompt(LineEditor())
            return []
        case .personaMenu:
            return openPersonaMenu(&s, now: now)
        case .editInstruction:
            // The editor has the terminal until it exits: nothing may keep listening meanwhile, as for Ctrl-Z.
            var fx: [Effect] = []
            if s.talk.micIsOpen { fx = s.talk.closeMic(now: now, muted: s.talk.mode == .open) }
            fx += s.talk.settleClosing()
            s.talk.cancelGesture()
            return fx + [.editInstruction(s.context.instruction ?? "")]
        case .search, .searchOlder, .searchNewer:
            return runSearch(&s, command)
        case .toggleRecording:
            return toggleRecording(&s)
        }
    }

    /// Space: push-to-talk, or mute/unmute in open-mic mode.
    static func space(_ s: inout AppState, _ k: KeyEvent, now: Double) -> [Effect] {
        if s.talk.mode == .open {
            guard k.kind == .press else { return [] }
            if s.usage.overBudget {
                askBudget(&s)
                return []
            }
            if s.talk.isMuted {
                s.talk.unmute()
                return openMicIfWanted(&s)
            }
            return s.talk.closeMic(now: now, muted: true)
        }
        guard let action = s.talk.gestureKey(k, now: now) else { return [] }
        return talk(&s, action, now: now)
    }
}
