import Live
import TUI

/// Personas, the edited instruction and tools on and off: each becomes one `ContextChange` for the session,
/// and what the user sees follows once the session says it took effect.
extension Reducer {
    static func openPersonaMenu(_ s: inout AppState, now: Double) -> [Effect] {
        guard !s.context.personas.isEmpty else {
            s.status = .noPersonas
            return []
        }
        var fx: [Effect] = []
        if s.talk.mode == .ptt, s.talk.micIsOpen { fx += stopMic(&s, now: now) }
        s.talk.cancelGesture()
        let entries = [VoiceOption(name: Persona.none, style: "the config's own settings")]
            + s.context.personas.map { VoiceOption(name: $0.name, style: $0.summary) }
        s.ui.overlay = .personaMenu(VoiceMenu(voices: entries, current: s.context.persona ?? Persona.none))
        return fx
    }

    /// Applies a persona in one step: instruction, voice and tools in one change (thinking, where it differs,
    /// moves the session to a new connection as well); its greeting goes once the change took effect.
    static func choosePersona(_ s: inout AppState, _ name: String) -> [Effect] {
        let persona = s.context.personas.first { $0.name == name }
        guard persona != nil || name == Persona.none else { return [] }
        if let problem = persona?.problem(on: s.ui.header.model) {
            return system(&s, "\(problem) — the conversation goes on as it was", error: true)
        }
        let base = s.context.base
        let instruction = persona?.system ?? base.systemInstruction
        let voice = persona?.voice ?? base.voice
        let thinking = persona?.thinking ?? base.thinking
        let toolsOn = s.context.toolsOn(under: persona)
        var change = ContextChange()
        if instruction != s.context.instruction { change.systemInstruction = Content(text: instruction ?? "") }
        if toolsOn != s.context.toolsOn { change.tools = s.context.setupTools(toolsOn) }
        if voice != (s.pendingVoice ?? s.voice) { change.voice = voice }
        s.context.instruction = instruction
        s.context.edited = false
        s.context.setTools(toolsOn)
        var fx: [Effect] = []
        if thinking != s.context.thinking {
            s.context.thinking = thinking
            fx.append(.live(.changeThinking(thinking, duringReply: s.talk.reply != .idle)))
        }
        let shown = persona?.name
        guard change != ContextChange() else {
            // Nothing the session holds differs: the persona is in use at once.
            s.context.persona = shown
            fx += system(&s, shown.map { "persona \($0): nothing to change" } ?? "back to the config's own settings")
            if let greeting = persona?.greeting { fx += sendText(&s, greeting, now: 0) }
            return fx
        }
        s.context.pending.append(.init(change: change, persona: shown ?? Persona.none, greeting: persona?.greeting))
        s.status = .switchingPersona(shown)
        return fx + changeContext(&s, change)
    }

    /// The editor closed: an instruction that changed is applied; an empty or unchanged one changes nothing.
    static func instructionEdited(_ s: inout AppState, _ outcome: InstructionEdit) -> [Effect] {
        switch outcome {
        case .unchanged:
            s.status = .instructionUnchanged
            return []
        case .empty:
            s.status = .instructionEmpty
            return []
        case .failed(let why):
            return system(&s, "the instruction was not changed: \(why)", error: true)
        case .changed(let text):
            if let refusal = Persona.instructionRefusal(text, model: s.ui.header.model) {
                return system(&s, "not applied: \(refusal) — shorten it and edit again", error: true)
            }
            s.context.instruction = text
            s.context.edited = true
            s.status = .applyingInstruction
            let change = ContextChange(instruction: text)
            s.context.pending.append(.init(change: change))
            return changeContext(&s, change)
        }
    }

    /// The tool pane turned tools on or off: the session offers the new set from the next reply on. A call
    /// to a tool turned off that is already running finishes; a later one is answered with an error.
    static func toggleTools(_ s: inout AppState, _ action: ToolLogModel.Action) -> [Effect] {
        var on = s.context.toolsOn
        switch action {
        case .toggle(let name):
            if on.contains(name) { on.remove(name) } else { on.insert(name) }
        case .toggleGroup(let server):
            let group = Set(s.context.tools.filter { $0.server == server }.map(\.name))
            if group.isSubset(of: on) { on.subtract(group) } else { on.formUnion(group) }
        case .none, .handled, .leave:
            return []
        }
        guard on != s.context.toolsOn else { return [] }
        let turnedOn = on.subtracting(s.context.toolsOn).sorted(), turnedOff = s.context.toolsOn.subtracting(on).sorted()
        s.context.setTools(on)
        let change = ContextChange(tools: s.context.setupTools(on))
        s.context.pending.append(.init(change: change))
        var words: [String] = []
        if !turnedOn.isEmpty { words.append(turnedOn.joined(separator: ", ") + " on") }
        if !turnedOff.isEmpty { words.append(turnedOff.joined(separator: ", ") + " off") }
        s.status = .toolsChanged(words.joined(separator: "; "))
        return changeContext(&s, change)
    }

    /// The session reported a change: a persona switch shows in the header and sends its greeting.
    static func contextSettled(_ s: inout AppState, _ change: ContextChange, applied: Bool, now: Double) -> [Effect] {
        guard let i = s.context.pending.firstIndex(where: { $0.change == change }) else { return [] }
        let done = s.context.pending.remove(at: i)
        guard applied else { return [] }
        var fx: [Effect] = []
        if let name = done.persona {
            s.context.persona = name == Persona.none ? nil : name
            s.status = nil
            // Said and recorded, so the transcript tells which persona answered from here on.
            fx += system(&s, s.context.persona.map { "now speaking as persona \($0)" } ?? "back to the config's own settings")
        } else if s.status?.isContextChangePending == true {
            s.status = nil
        }
        if let greeting = done.greeting { fx += sendText(&s, greeting, now: now) }
        return fx
    }

    /// Calls to tools that are off are answered at once with an error the model can read.
    static func refusedCalls(_ s: AppState, _ calls: [FunctionCall]) -> [FunctionResponse] {
        calls.map {
            FunctionResponse(id: $0.id, name: $0.name, response: ["error": .string("the user turned the tool \($0.name) off; do not call it again unless they turn it back on")],
                             scheduling: s.toolPolicy.responseScheduling(of: $0.name))
        }
    }

    package static func refreshContext(_ s: inout AppState) {
        s.ui.header.persona = s.context.persona
        s.ui.header.instructionEdited = s.context.edited
        if s.ui.toolLog.tools != s.context.tools { s.ui.toolLog.tools = s.context.tools }
    }
}
