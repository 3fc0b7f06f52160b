import Foundation
import Live

/// The server side of one connection, as a state machine: it takes client frames and timer expiries and returns
/// the actions to perform (send, close, drop, schedule). It does no I/O; ``SimulatorConnectionHandler`` does.
/// Time is the duration since the connection opened, passed in, so the machine is deterministic.
struct SimulatedSession {
    /// Timers a session asks its connection to run.
    enum Timer: Hashable, Sendable {
        case replyStart, replyStep, goAway, goAwayClose, drop
    }

    enum Action: Sendable {
        case send(ServerMessage)
        /// Bytes that are not a valid message (fault injection).
        case sendRaw(String)
        case close(CloseReason)
        /// Close the TCP connection without a close frame.
        case drop
        case schedule(Timer, after: Duration)
        case cancel(Timer)
        /// Work out a picture's average colour off the event loop (ffmpeg takes tens of milliseconds), then
        /// hand it to ``colourDecoded(_:turn:now:)``.
        case decodeColour(Data, turn: Int)
    }

    private enum Phase {
        case awaitingSetup
        case live
        case closed
    }

    /// What the setup asked for.
    private struct Config {
        var automaticActivity = true
        var interruptOnActivity = true
        var transcribeInput = false
        var transcribeOutput = false
        var audioOut = true
        var resumption = false
        var declaredTools: Set<String> = []
        var voice = Voice.defaultName
        var silence: Duration = .milliseconds(500)
        var startSensitivityLow = false
        var model = LiveModel.traits(of: LiveModel.defaultID)
        /// Declared function name → how the model runs it.
        var behaviors: [String: LiveModel.FunctionBehavior] = [:]
        /// The system instruction's text: the part the reply script can honour is read from it.
        var instruction: String?
    }

    /// A reply waiting for `replyDelay` to pass.
    private struct PendingStart {
        var turn: Int
        var intent: ReplyScript.Intent
        /// A picture the reply describes: it waits for the picture's colour.
        var shown: SimulatedVision.Shown?
        /// `replyDelay` has passed; only the colour is awaited.
        var delayPassed = false

        init(turn: Int, intent: ReplyScript.Intent, shown: SimulatedVision.Shown? = nil) {
            self.turn = turn
            self.intent = intent
            self.shown = shown
        }
    }

    /// Calls sent in a `toolCall`, waiting for their responses.
    private struct PendingTools {
        var turn: Int
        var calls: [(id: String, call: ReplyScript.Call)]
        var responses: [String: JSONValue] = [:]
        var isComplete: Bool { calls.allSatisfy { responses[$0.id] != nil } }
    }

    /// A reply being streamed.
    private struct ActiveReply {
        enum Kind { case content, generationComplete, turnComplete }
        struct Step {
            var at: Duration
            var kind: Kind
            var message: ServerMessage
            /// The first step that carries a new word (for the history of an interrupted turn).
            var startsWord = false
        }
        var turn: Int
        var text: String
        var steps: [Step]
        var next = 0
        var startedAt: Duration
        var audioSeconds: Double
        /// Words of `text` whose transcription was sent, for the history of an interrupted turn.
        var wordsSent = 0
    }

    private let options: SimulatorOptions
    private let directory: any SessionDirectory
    private let keyAccepted: Bool
    private let connection: Int
    /// The service this connection reached (by the URL path): the model form and the fields each takes differ.
    private let backend: LiveModel.Backend
    /// What the connection's `Authorization` header carried, checked once the setup says new session or resume.
    private let presented: PresentedCredential

    private var phase = Phase.awaitingSetup
    private var config = Config()
    private var conversation: Conversation?
    private var messagesReceived: Int64 = 0
    private var vad: EnergyVAD
    private var synth = VoiceSynth(voiceName: Voice.defaultName)
    /// Frames and images shown on this connection (see ``SimulatedVision``).
    private var vision = SimulatedVision()

    private var pendingStart: PendingStart?
    private var pendingTools: PendingTools?
    private var reply: ActiveReply?
    /// Ids cancelled by `toolCallCancellation`: a late response to one is recorded, not answered.
    private var cancelledCalls: Set<String> = []
    /// NON_BLOCKING calls still running on the client: the conversation went on without them.
    private var asyncCalls: [String: (turn: Int, call: ReplyScript.Call)] = [:]
    /// Results of NON_BLOCKING calls scheduled WHEN_IDLE, spoken once the current reply ends.
    private var idleQueue: [PendingStart] = []
    /// Realtime input arrived: models without mid-session `clientContent` refuse it from now on.
    private var sawRealtimeInput = false
    /// Manual mode: inside `activityStart` … `activityEnd`. Auto mode: the VAD hears speech.
    private var userSpeaking = false

    private var turnAudioBytes = 0
    /// The scripted transcript of the audio turn in progress, and how many of its words were already sent
    /// (the real service transcribes while the user is still talking).
    private var heard: (words: [String], sent: Int)?
    /// One word of transcript per 300 ms of 16 kHz speech.
    private static let bytesPerHeardWord = 9_600

    init(
        options: SimulatorOptions, directory: any SessionDirectory, keyAccepted: Bool, connection: Int,
        backend: LiveModel.Backend = .geminiAPI, presented: PresentedCredential = .none
    ) {
        self.options = options
        self.directory = directory
        self.keyAccepted = keyAccepted
        self.connection = connection
        self.backend = backend
        self.presented = presented
        vad = EnergyVAD(sampleRate: 16_000, threshold: options.vadThreshold, silence: options.defaultSilenceDuration)
    }

    // MARK: - Inputs

    /// One client frame (text or binary, already unmasked and reassembled).
    mutating func receive(_ bytes: Data, now: Duration) -> [Action] {
        guard phase != .closed else { return [] }
        messagesReceived += 1
        directory.record { $0.clientMessagesReceived += 1 }
        if phase == .awaitingSetup, !keyAccepted { return close(.invalidAPIKey) }
        let message: ClientMessage
        do {
            message = try LiveCodec().decodeClient(bytes)
        } catch {
            return close(.invalidArgument)
        }
        switch (phase, message) {
        case (.awaitingSetup, .setup(let setup)): return receiveSetup(setup, now: now)
        case (.awaitingSetup, _), (.live, .setup): return close(.invalidArgument)
        case (.live, .realtimeInput(let input)):
            sawRealtimeInput = true
            return receiveRealtime(input, now: now)
        case (.live, .clientContent(let content)):
            // Models without mid-session `clientContent` take it only to seed the context before anything else.
            if !config.model.midSessionClientContent,
                content.turnComplete == true || sawRealtimeInput || (conversation?.turns ?? 0) > 0
            {
                return close(.clientContentNotAllowed(LiveModel.resourceName(config.model.id)))
            }
            return receiveContent(content, now: now)
        case (.live, .toolResponse(let response)): return receiveToolResponse(response, now: now)
        case (.live, .contextUpdate(let update)): return receiveContextUpdate(update)
        case (.closed, _): return []
        }
    }

    mutating func timerFired(_ timer: Timer, now: Duration) -> [Action] {
        guard phase == .live else { return [] }
        switch timer {
        case .replyStart:
            guard var start = pendingStart else { return [] }
            if start.shown != nil {
                start.delayPassed = true
                pendingStart = start
                return startDescribing(now: now)
            }
            pendingStart = nil
            return startReply(start, now: now)
        case .replyStep:
            return streamReply(now: now)
        case .goAway:
            directory.record { $0.goAwaysSent += 1 }
            let left = options.goAwayTimeLeft
            return [
                .send(ServerMessage(goAway: GoAway(timeLeft: ProtobufDuration.format(left)))),
                .schedule(.goAwayClose, after: left),
            ]
        case .goAwayClose:
            return close(.normal)
        case .drop:
            phase = .closed
            directory.record { $0.dropsInjected += 1 }
            return [.drop]
        }
    }

    /// The client sent a close frame or the connection went away.
    mutating func connectionEnded() { phase = .closed }

    // MARK: - Setup

    /// The credential check the service makes: Vertex AI wants a valid bearer token; an ephemeral token is
    /// spent by a new session, and resuming with a handle does not count as a use.
    private func credentialProblem(resumed: Bool) -> CloseReason? {
        switch presented {
        case .bearer(let token):
            if let accepts = options.acceptsAccessToken, !accepts(token) { return .invalidCredentials }
        case .ephemeral(let token):
            guard let accepts = options.acceptsEphemeralToken else { return nil }
            guard accepts(token) else { return .invalidAPIKey }
            if !resumed, !directory.spendToken(token) { return .tokenSpent }
        case .none, .other:
            if backend == .vertex, options.acceptsAccessToken != nil { return .invalidCredentials }
        }
        return nil
    }

    private mutating func receiveSetup(_ setup: Setup, now: Duration) -> [Action] {
        let model = setup.model
        let id: String
        switch backend {
        case .geminiAPI:
            guard model.hasPrefix("models/") else { return close(.invalidArgument) }
            id = String(model.dropFirst("models/".count))
            guard LiveModel.named(id) != nil || id.hasPrefix("sim-") else { return close(.modelNotFound(model)) }
        case .vertex:
            guard let bare = SetupCheck.vertexModelID(model) else { return close(.publisherModelNotFound(model)) }
            id = bare
            let served = LiveModel.availability(of: id, on: .vertex)
            guard LiveModel.named(id) != nil || id.hasPrefix("sim-"), served == .served || served == .unconfirmed else {
                return close(.publisherModelNotFound(model))
            }
        }
        config.model = LiveModel.traits(of: id)
        if let problem = SetupCheck.problem(setup, model: config.model) ?? SetupCheck.problem(setup, backend: backend)
            ?? SetupCheck.problem(instruction: setup.systemInstruction, model: config.model)
        {
            return close(problem)
        }
        if let modalities = setup.generationConfig?.responseModalities {
            guard modalities.count <= 1, modalities.allSatisfy({ $0 == "AUDIO" || $0 == "TEXT" }) else {
                return close(.invalidArgument)
            }
            config.audioOut = modalities.first != "TEXT"
        }
        if let name = setup.voiceName {
            guard let voice = Voice.named(name) else { return close(.invalidArgument) }
            config.voice = voice.name
        }
        var resumed = false
        if let handle = setup.sessionResumption?.handle, !handle.isEmpty {
            switch directory.resolve(handle: handle.revealed) {
            case .malformed: return close(.invalidArgument)
            case .notFound: return close(.entityNotFound)
            case .found(let c):
                // The configuration may change on resume (the voice included), the model may not.
                guard c.model == model else { return close(.invalidArgument) }
                conversation = c
                resumed = true
            }
        }
        if let refused = credentialProblem(resumed: resumed) {
            directory.record { $0.credentialsRefused += 1 }
            return close(refused)
        }
        if !resumed { conversation = directory.newConversation(model: model) }
        let sessionID = conversation?.sessionID ?? 0

        let detection = setup.realtimeInputConfig?.automaticActivityDetection
        config.automaticActivity = setup.automaticActivityDetection
        config.interruptOnActivity = setup.realtimeInputConfig?.activityHandling != "NO_INTERRUPTION"
        config.transcribeInput = setup.inputAudioTranscription != nil
        config.transcribeOutput = setup.outputAudioTranscription != nil
        config.resumption = setup.sessionResumption != nil
        declare(setup.tools, in: setup)
        config.instruction = setup.systemInstruction?.text
        config.silence = detection?.silenceDurationMs.map { .milliseconds(max(20, $0)) } ?? options.defaultSilenceDuration
        config.startSensitivityLow = detection?.startOfSpeechSensitivity == "START_SENSITIVITY_LOW"
        synth = VoiceSynth(voiceName: config.voice)
        vad = makeVAD(sampleRate: 16_000)
        phase = .live

        let record = SetupRecord(
            connection: connection, sessionID: sessionID, model: model, voiceName: setup.voiceName, resumed: resumed,
            resumptionRequested: config.resumption, automaticActivityDetection: config.automaticActivity,
            declaredTools: config.declaredTools.sorted(), systemInstruction: config.instruction)
        directory.record {
            $0.setups.append(record)
            $0.backends.append(backend)
        }
        directory.recordSession(sessionID) { $0.connections += 1 }

        var actions: [Action] = [.send(ServerMessage(setupComplete: EmptyObject()))]
        if config.resumption, options.resumptionUpdateAfterSetup { actions += resumableUpdate() }
        guard options.hasFaults, directory.claimFaults(resumed: resumed) else { return actions }
        if options.malformedFrameAfterSetup {
            directory.record { $0.malformedFramesSent += 1 }
            actions.append(.sendRaw(#"{"serverContent": {"modelTurn": 7"#))
        }
        if let c = options.closeAfterSetup { return actions + close(CloseReason(code: c.code, reason: c.reason)) }
        if let after = options.goAwayAfter { actions.append(.schedule(.goAway, after: after)) }
        if let after = options.dropAfter { actions.append(.schedule(.drop, after: after)) }
        return actions
    }

    private mutating func declare(_ tools: [Tool]?, in setup: Setup) {
        config.declaredTools = Set((tools ?? []).flatMap { $0.functionDeclarations ?? [] }.map(\.name))
        config.behaviors = [:]
        for name in config.declaredTools { config.behaviors[name] = config.model.behavior(of: name, in: setup) }
    }

    // MARK: - Context updates

    /// `contextUpdate`: only where the model table says the model takes it on this backend (an unconfirmed one
    /// is refused too, so parley's fallback is what gets tested there); it must carry at least one of its two
    /// fields, and its tools are checked as a setup's. From the next reply on the model follows it: the reply
    /// script reads the new instruction, and only the listed tools are called.
    private mutating func receiveContextUpdate(_ update: ContextUpdate) -> [Action] {
        let name = LiveModel.resourceName(config.model.id)
        guard LiveModel.contextUpdate(of: config.model.id, on: backend) == .yes || config.model.id.hasPrefix("sim-") else {
            return close(.contextUpdateNotSupported(name))
        }
        guard !update.isEmpty else { return close(.invalidArgument) }
        if let problem = SetupCheck.problem(instruction: update.systemInstruction, model: config.model) { return close(problem) }
        var probe = Setup(model: name, tools: update.tools)
        if let tools = update.tools {
            if let problem = SetupCheck.problem(probe, model: config.model) ?? SetupCheck.problem(probe, backend: backend) {
                return close(problem)
            }
            probe.tools = tools
            declare(tools, in: probe)
        }
        if let instruction = update.systemInstruction { config.instruction = instruction.text }
        let record = ContextUpdateRecord(
            connection: connection, systemInstruction: update.systemInstruction?.text,
            declaredTools: update.tools.map { _ in config.declaredTools.sorted() })
        directory.record { $0.contextUpdates.append(record) }
        return []
    }

    private func makeVAD(sampleRate: Int) -> EnergyVAD {
        EnergyVAD(
            sampleRate: sampleRate, threshold: options.vadThreshold * (config.startSensitivityLow ? 2 : 1),
            silence: config.silence)
    }

    // MARK: - Realtime input

    private mutating func receiveRealtime(_ input: RealtimeInput, now: Duration) -> [Action] {
        switch input {
        case .audio(let blob):
            return receiveAudio(blob, now: now)
        case .video(let blob):
            let refused = vision.receive(blob, now: now, userSpeaking: userSpeaking, connection: connection, directory: directory)
            return refused.map { close($0) } ?? []
        case .text(let text):
            return respond(to: text, now: now)
        case .activityStart:
            guard !config.automaticActivity else { return close(.invalidArgument) }
            guard !userSpeaking else { return [] }
            userSpeaking = true
            turnAudioBytes = 0
            heard = nil
            return config.interruptOnActivity ? interruptForNewInput() : []
        case .activityEnd:
            guard !config.automaticActivity else { return close(.invalidArgument) }
            guard userSpeaking else { return [] }
            return endAudioTurn(now: now)
        case .audioStreamEnd:
            guard config.automaticActivity else { return close(.invalidArgument) }
            vad.reset()
            guard userSpeaking else { return [] }
            return endAudioTurn(now: now)
        }
    }

    private mutating func receiveAudio(_ blob: Blob, now: Duration) -> [Action] {
        let count = blob.data.count
        directory.record { $0.audioBytesReceived += count }
        if let id = conversation?.sessionID { directory.recordSession(id) { $0.audioBytesReceived += count } }
        guard config.automaticActivity else {
            guard userSpeaking else { return [] }
            turnAudioBytes += count
            return hearAudio()
        }
        if let rate = blob.sampleRate, rate != vad.sampleRate, rate >= 1000 { vad = makeVAD(sampleRate: rate) }
        if userSpeaking { turnAudioBytes += count }
        var actions: [Action] = []
        for event in vad.process(blob.data) {
            switch event {
            case .speechStarted:
                userSpeaking = true
                turnAudioBytes = count
                heard = nil
                if config.interruptOnActivity { actions += interruptForNewInput() }
            case .speechEnded:
                actions += endAudioTurn(now: now)
            }
        }
        return actions + hearAudio()
    }

    /// Streams the transcript of the audio turn in progress, a word per 300 ms of speech, keeping the last word
    /// for the end of the turn.
    private mutating func hearAudio() -> [Action] {
        guard userSpeaking, turnAudioBytes > 0 else { return [] }
        var h = heard ?? (words: nextTranscript().split(separator: " ").map(String.init), sent: 0)
        defer { heard = h }
        guard config.transcribeInput else { return [] }
        let due = min(h.words.count - 1, turnAudioBytes / Self.bytesPerHeardWord)
        guard due > h.sent else { return [] }
        let piece = (h.sent > 0 ? " " : "") + h.words[h.sent..<due].joined(separator: " ")
        h.sent = due
        var actions: [Action] = []
        if sendsInterimTranscription {
            actions.append(.send(Self.content(ServerContent(interimInputTranscription: Transcription(text: piece)))))
        }
        return actions + [.send(Self.content(ServerContent(inputTranscription: Transcription(text: piece))))]
    }

    private mutating func nextTranscript() -> String {
        let scripts = options.audioTranscripts.isEmpty ? ["Hello, can you hear me?"] : options.audioTranscripts
        guard var c = conversation else { return scripts[0] }
        let text = scripts[c.nextTranscript % scripts.count]
        c.nextTranscript += 1
        conversation = c
        return text
    }

    private mutating func endAudioTurn(now: Duration) -> [Action] {
        userSpeaking = false
        let h = heard ?? (turnAudioBytes > 0 ? (words: nextTranscript().split(separator: " ").map(String.init), sent: 0) : nil)
        heard = nil
        // 16 kHz 16-bit mono: 32,000 bytes a second, 25 tokens a second.
        if h != nil { conversation?.audioTokens += Int((Double(turnAudioBytes) / 32_000 * 25).rounded(.up)) }
        turnAudioBytes = 0
        guard let h else { return [] }
        return respond(to: h.words.joined(separator: " "), transcribedWords: h.sent, now: now)
    }

    // MARK: - Client content and tool responses

    private mutating func receiveContent(_ content: ClientContent, now: Duration) -> [Action] {
        let text = (content.turns ?? []).filter { $0.role == nil || $0.role == "user" }.map(\.text)
            .filter { !$0.isEmpty }.joined(separator: " ")
        guard content.turnComplete == true else {
            if !text.isEmpty { conversation?.history.append(text) }
            let seeded = (content.turns ?? []).map(\.text)
            directory.record { $0.contextReceived += seeded }
            return []
        }
        return respond(to: text, now: now)
    }

    private mutating func receiveToolResponse(_ response: ToolResponse, now: Duration) -> [Action] {
        var actions: [Action] = []
        for r in response.functionResponses {
            directory.record { $0.toolResponsesReceived.append(r.id) }
            if let running = asyncCalls[r.id] {
                actions += receiveAsyncResult(r, of: running, now: now)
                continue
            }
            guard var pending = pendingTools, pending.calls.contains(where: { $0.id == r.id }),
                pending.responses[r.id] == nil
            else {
                let late = cancelledCalls.contains(r.id)
                directory.record {
                    $0.unknownToolResponseIDs.append(r.id)
                    if late { $0.responsesToCancelledCalls.append(r.id) }
                }
                continue
            }
            pending.responses[r.id] = r.response
            pendingTools = pending
            if pending.isComplete {
                pendingTools = nil
                let results = pending.calls.map { (call: $0.call, response: pending.responses[$0.id] ?? .null) }
                let text = ReplyScript.reply(ReplyScript.afterTools(results), turn: pending.turn, instruction: config.instruction)
                actions += scheduleStart(PendingStart(turn: pending.turn, intent: .speak(text)), now: now)
            }
        }
        return actions
    }

    /// A NON_BLOCKING call's result: partial ones are noted; the final one is spoken as its scheduling says.
    private mutating func receiveAsyncResult(
        _ r: FunctionResponse, of running: (turn: Int, call: ReplyScript.Call), now: Duration
    ) -> [Action] {
        if r.willContinue == true {
            directory.record { $0.partialToolResults.append(r.id) }
            return []
        }
        asyncCalls[r.id] = nil
        let scheduling = r.scheduling ?? .whenIdle
        directory.record { $0.toolResponseSchedulings.append(scheduling.rawValue) }
        let text = ReplyScript.reply(ReplyScript.afterTools([(call: running.call, response: r.response)]), turn: running.turn, instruction: config.instruction)
        let start = PendingStart(turn: running.turn, intent: .speak(text))
        switch scheduling {
        case .silent:
            conversation?.history.append(text)
            return []
        case .interrupt:
            return cutReply() + scheduleStart(start, now: now)
        case .whenIdle:
            if reply != nil || pendingStart != nil {
                idleQueue.append(start)
                return []
            }
            return scheduleStart(start, now: now)
        }
    }

    /// 3.8 models send a fast partial transcript of the user before the final one.
    private var sendsInterimTranscription: Bool { config.model.id.hasPrefix("gemini-3.8") }

    // MARK: - Turns

    /// A user turn ended: transcribe it, then answer after `replyDelay`.
    private mutating func respond(to userText: String, transcribedWords: Int = 0, now: Duration) -> [Action] {
        var actions = interruptForNewInput()
        guard var c = conversation else { return actions }
        c.turns += 1
        c.history.append(userText)
        conversation = c
        let turn = c.turns
        directory.record { $0.userTurns.append(userText) }
        if config.transcribeInput {
            let rest = userText.split(separator: " ").dropFirst(transcribedWords).map(String.init)
            for piece in Self.pieces(of: rest, wordsPerPiece: 3, continuing: transcribedWords > 0) {
                actions.append(.send(Self.content(ServerContent(inputTranscription: Transcription(text: piece)))))
            }
            actions.append(.send(Self.content(ServerContent(inputTranscription: Transcription(finished: true)))))
        }
        let intent: ReplyScript.Intent
        switch ReplyScript.intent(for: userText, declaredTools: config.declaredTools) {
        case .speak(let text):
            if let shown = vision.take(for: userText) {
                // The answer describes the picture; its colour is decoded off the event loop meanwhile.
                pendingStart = PendingStart(turn: turn, intent: .speak(text), shown: shown)
                return actions + [.decodeColour(shown.jpeg, turn: turn), .schedule(.replyStart, after: max(.zero, options.replyDelay))]
            }
            intent = .speak(ReplyScript.reply(text, turn: turn, instruction: config.instruction))
        case .callTools(let calls): intent = .callTools(calls)
        }
        return actions + scheduleStart(PendingStart(turn: turn, intent: intent), now: now)
    }

    /// The colour of the picture a pending reply describes (nil: it could not be decoded).
    mutating func colourDecoded(_ colour: FrameColour?, turn: Int, now: Duration) -> [Action] {
        guard phase == .live, var start = pendingStart, start.turn == turn, let shown = start.shown else { return [] }
        start.intent = .speak(SimulatedVision.answer(shown, colour: colour))
        start.shown = nil
        pendingStart = start
        return startDescribing(now: now)
    }

    /// Starts the reply that describes a picture once both its delay has passed and its colour is known.
    private mutating func startDescribing(now: Duration) -> [Action] {
        guard let start = pendingStart, start.delayPassed, start.shown == nil else { return [] }
        pendingStart = nil
        return startReply(start, now: now)
    }

    private mutating func scheduleStart(_ start: PendingStart, now: Duration) -> [Action] {
        if options.replyDelay <= .zero { return startReply(start, now: now) }
        pendingStart = start
        return [.schedule(.replyStart, after: options.replyDelay)]
    }

    private mutating func startReply(_ start: PendingStart, now: Duration) -> [Action] {
        switch start.intent {
        case .callTools(let calls) where calls.allSatisfy({ config.behaviors[$0.name] == .nonBlocking }):
            // NON_BLOCKING: the model says it is on it and talks on while the client runs the calls.
            guard var c = conversation else { return [] }
            var functionCalls: [FunctionCall] = []
            for call in calls {
                c.nextCall += 1
                let id = "function-call-\(c.sessionID)\(c.nextCall)"
                asyncCalls[id] = (turn: start.turn, call: call)
                functionCalls.append(FunctionCall(id: id, name: call.name, args: call.args))
            }
            conversation = c
            let ids = functionCalls.map(\.id)
            directory.record { $0.toolCallsSent += ids }
            let status = Self.content(ServerContent(interactionStatus: "RUNNING_FUNCTIONS"))
            let text = ReplyScript.reply("Let me look into that; I'll tell you as soon as it's back.", turn: start.turn, instruction: config.instruction)
            let plan = planReply(text)
            reply = ActiveReply(turn: start.turn, text: text, steps: plan.steps, startedAt: now, audioSeconds: plan.audioSeconds)
            directory.record { $0.replies.append(text) }
            return [.send(ServerMessage(toolCall: ToolCall(functionCalls: functionCalls))), .send(status)] + streamReply(now: now)
        case .callTools(let calls):
            guard var c = conversation else { return [] }
            var numbered: [(id: String, call: ReplyScript.Call)] = []
            for call in calls {
                c.nextCall += 1
                numbered.append((id: "fc-\(c.sessionID)-\(c.nextCall)", call: call))
            }
            conversation = c
            pendingTools = PendingTools(turn: start.turn, calls: numbered)
            let ids = numbered.map(\.id)
            directory.record { $0.toolCallsSent += ids }
            let message = ServerMessage(
                toolCall: ToolCall(functionCalls: numbered.map { FunctionCall(id: $0.id, name: $0.call.name, args: $0.call.args) }))
            return notResumable() + [.send(message)]
        case .speak(let text):
            let plan = planReply(text)
            reply = ActiveReply(turn: start.turn, text: text, steps: plan.steps, startedAt: now, audioSeconds: plan.audioSeconds)
            directory.record { $0.replies.append(text) }
            return streamReply(now: now)
        }
    }

    /// Sends every step that is due and schedules the next one.
    private mutating func streamReply(now: Duration) -> [Action] {
        guard var r = reply else { return [] }
        var actions: [Action] = []
        let elapsed = now - r.startedAt
        while r.next < r.steps.count, r.steps[r.next].at <= elapsed {
            let step = r.steps[r.next]
            r.next += 1
            if step.startsWord { r.wordsSent += 1 }
            var message = step.message
            if let u = message.usageMetadata { message.usageMetadata = reported(u) }
            actions.append(.send(message))
            if step.kind == .turnComplete {
                reply = nil
                actions += finishTurn(r, interrupted: false)
                if !idleQueue.isEmpty { actions += scheduleStart(idleQueue.removeFirst(), now: now) }
                return actions
            }
        }
        reply = r
        if r.next < r.steps.count { actions.append(.schedule(.replyStep, after: r.steps[r.next].at - elapsed)) }
        return actions
    }

    /// New input arrived: cut the current reply short, cancel pending tool calls, drop a reply not yet started.
    private mutating func interruptForNewInput() -> [Action] {
        var actions: [Action] = []
        if pendingStart != nil {
            pendingStart = nil
            actions.append(.cancel(.replyStart))
        }
        if let pending = pendingTools {
            pendingTools = nil
            let ids = pending.calls.map(\.id).filter { pending.responses[$0] == nil }
            cancelledCalls.formUnion(ids)
            directory.record { $0.toolCallsCancelled += ids }
            actions.append(.send(ServerMessage(toolCallCancellation: ToolCallCancellation(ids: ids))))
        }
        return actions + cutReply()
    }

    /// Cuts the reply being streamed: `interrupted`, then `turnComplete` with the usage so far.
    private mutating func cutReply() -> [Action] {
        var actions: [Action] = []
        if let r = reply {
            reply = nil
            directory.record { $0.interruptions += 1 }
            actions.append(.cancel(.replyStep))
            actions.append(.send(Self.content(ServerContent(interrupted: true))))
            var cut = usage(for: r)
            let sent = (cut.responseTokenCount ?? 0) * r.next / max(1, r.steps.count)
            cut.totalTokenCount = (cut.totalTokenCount ?? 0) - (cut.responseTokenCount ?? 0) + sent
            cut.responseTokenCount = sent
            cut.responseTokensDetails = cut.responseTokensDetails?.map { .init(modality: $0.modality, tokenCount: sent) }
            actions.append(.send(ServerMessage(serverContent: ServerContent(turnComplete: true), usageMetadata: reported(cut))))
            actions += finishTurn(r, interrupted: true)
        }
        return actions
    }

    /// After `turnComplete`: remember the reply and hand out a fresh resumption handle.
    private mutating func finishTurn(_ r: ActiveReply, interrupted: Bool) -> [Action] {
        let words = r.text.split(separator: " ")
        let said = interrupted ? words.prefix(r.wordsSent).joined(separator: " ") : r.text
        conversation?.history.append(said)
        directory.record { $0.turnsAnswered += 1 }
        if let id = conversation?.sessionID { directory.recordSession(id) { $0.turnsAnswered += 1 } }
        return config.resumption ? resumableUpdate() : []
    }

    private func resumableUpdate() -> [Action] {
        guard let c = conversation else { return [] }
        let handle = directory.issueHandle(for: c)
        return [.send(ServerMessage(sessionResumptionUpdate: SessionResumptionUpdate(
            newHandle: Secret(handle), resumable: true, lastConsumedClientMessageIndex: messagesReceived - 1)))]
    }

    /// During generation and tool calls the session cannot be resumed; the real service says so now and then.
    private func notResumable() -> [Action] {
        config.resumption ? [.send(ServerMessage(sessionResumptionUpdate: SessionResumptionUpdate(resumable: false)))] : []
    }

    private mutating func close(_ reason: CloseReason) -> [Action] {
        phase = .closed
        return [.close(reason.cutForCloseFrame)]
    }

    // MARK: - Reply planning

    /// Turns a reply into timed steps: transcription pieces interleaved with audio chunks, sent `audioSpeedup`
    /// times faster than real time in bursts, then `generationComplete`, then `turnComplete` with usage.
    private func planReply(_ text: String) -> (steps: [ActiveReply.Step], audioSeconds: Double) {
        typealias Step = ActiveReply.Step
        let words = text.split(separator: " ").map(String.init)
        let speedup = options.audioSpeedup > 0 ? options.audioSpeedup : 1
        let burst = max(0.001, Self.seconds(options.burstInterval))
        let rate = Double(VoiceSynth.sampleRate)
        func wall(_ audioSeconds: Double) -> Duration {
            let t = audioSeconds / speedup
            return Self.duration((t / burst).rounded(.down) * burst)
        }
        var steps: [Step] = []
        // The service opens every turn with an empty update, and sends the new handle after `turnComplete`.
        if config.resumption {
            steps.append(Step(at: .zero, kind: .content, message: ServerMessage(sessionResumptionUpdate: SessionResumptionUpdate())))
        }
        if case .level = config.model.thinking, config.model.id.hasSuffix("extended-thinking") {
            steps.append(Step(at: .zero, kind: .content, message: Self.content(ServerContent(interactionStatus: "THINKING"))))
        }
        if config.model.textPartsAreThoughts, config.audioOut {
            // Native-audio models send their thoughts as text parts; the words come as output transcription.
            let thought = "**Answering the user**\n\nI'll reply briefly and mention the turn number."
            steps.append(Step(at: .zero, kind: .content, message: Self.content(ServerContent(modelTurn: Content(role: "model", text: thought)))))
        }
        var samples = 0
        let chunk = VoiceSynth.sampleRate / 10
        for (i, word) in words.enumerated() {
            let piece = i == 0 ? word : " " + word
            let at = wall(Double(samples) / rate)
            if !config.audioOut {
                let t = Self.duration(Double(i) * 0.04 / speedup)
                steps.append(Step(at: t, kind: .content, message: Self.content(ServerContent(modelTurn: Content(role: "model", text: piece))), startsWord: true))
                continue
            }
            if config.transcribeOutput {
                steps.append(Step(at: at, kind: .content, message: Self.content(ServerContent(outputTranscription: Transcription(text: piece)))))
            }
            let pcm = synth.word(word, index: i)
            var start = 0
            while start < pcm.count {
                let end = min(pcm.count, start + chunk)
                let data = pcm[start..<end].withUnsafeBufferPointer { Data(buffer: $0) }
                let part = Part(inlineData: Blob(mimeType: LiveAudioFormat.outputMimeType, data: data))
                steps.append(Step(at: wall(Double(samples) / rate), kind: .content,
                                  message: Self.content(ServerContent(modelTurn: Content(role: "model", parts: [part]))),
                                  startsWord: start == 0))
                samples += end - start
                start = end
            }
            if i == words.count / 2, config.resumption, let update = notResumable().first, case .send(let m) = update {
                steps.append(Step(at: wall(Double(samples) / rate), kind: .content, message: m))
            }
        }
        let audioSeconds = config.audioOut ? Double(samples) / rate : 0
        let generated = (steps.map(\.at).max() ?? .zero) + (config.audioOut ? options.burstInterval : .milliseconds(10))
        steps.append(Step(at: generated, kind: .generationComplete, message: Self.content(ServerContent(generationComplete: true))))
        let done = options.turnCompleteAfterPlayback && config.audioOut ? max(generated, Self.duration(audioSeconds)) : generated
        var final = ServerMessage(serverContent: options.omitTurnComplete ? nil : ServerContent(turnComplete: true))
        final.usageMetadata = usage(words: words.count, audioSeconds: audioSeconds)
        steps.append(Step(at: done, kind: .turnComplete, message: final))
        return (steps, audioSeconds)
    }

    private func usage(for r: ActiveReply) -> UsageMetadata {
        usage(words: r.text.split(separator: " ").count, audioSeconds: r.audioSeconds)
    }

    /// Usage the way the service reports it (see PROTOCOL.md "Usage metadata"): the prompt is the whole context
    /// so far and grows every turn; its details fall short of it (the instruction is not itemised); what the
    /// previous turn's prompt held comes back as cached; the reply is audio at 25 tokens a second; a native-audio
    /// model's thoughts are counted apart. Served as Vertex, the same numbers come with `trafficType`.
    private func usage(words: Int, audioSeconds: Double) -> UsageMetadata {
        let historyWords = (conversation?.history ?? []).reduce(0) { $0 + $1.split(separator: " ").count }
        let text = Int((Double(historyWords) * 1.3).rounded(.up))
        let audio = conversation?.audioTokens ?? 0
        let images = vision.framesAccepted * Self.tokensPerImage
        let prompt = Self.instructionTokens + text + audio + images
        let cached = min(conversation?.lastPrompt ?? 0, prompt) / 2
        let response = config.audioOut ? Int((audioSeconds * 25).rounded(.up)) : Int((Double(words) * 1.3).rounded(.up))
        let thoughts = config.model.textPartsAreThoughts && config.audioOut ? Self.thoughtTokens : 0
        var u = UsageMetadata(promptTokenCount: prompt, responseTokenCount: response, totalTokenCount: prompt + response + thoughts)
        u.promptTokensDetails = [.init(modality: "TEXT", tokenCount: text)]
        if audio > 0 { u.promptTokensDetails?.append(.init(modality: "AUDIO", tokenCount: audio)) }
        if images > 0 { u.promptTokensDetails?.append(.init(modality: "IMAGE", tokenCount: images)) }
        if cached > 0 {
            u.cachedContentTokenCount = cached
            u.cacheTokensDetails = [.init(modality: "TEXT", tokenCount: cached)]
        }
        u.responseTokensDetails = [.init(modality: config.audioOut ? "AUDIO" : "TEXT", tokenCount: response)]
        if thoughts > 0 { u.thoughtsTokenCount = thoughts }
        if options.usageNaming == .vertex { u.trafficType = "ON_DEMAND" }
        return u
    }

    /// Keeps what is reported, so tests can compare every surface with it.
    private mutating func reported(_ u: UsageMetadata) -> UsageMetadata {
        if var c = conversation {
            c.lastPrompt = u.promptTokenCount ?? 0
            conversation = c
        }
        directory.record { $0.usageReported.append(u) }
        return u
    }

    /// The system instruction and setup, which the prompt details do not itemise (captures show such gaps).
    static let instructionTokens = 25
    static let thoughtTokens = 17
    /// An image or frame at the default media resolution.
    static let tokensPerImage = 258

    // MARK: - Helpers

    private static func content(_ c: ServerContent) -> ServerMessage { ServerMessage(serverContent: c) }

    /// Groups words into transcription pieces; every piece but a first one starts with a space.
    static func pieces(of words: [String], wordsPerPiece: Int, continuing: Bool) -> [String] {
        stride(from: 0, to: words.count, by: wordsPerPiece).map { i in
            let piece = words[i..<min(words.count, i + wordsPerPiece)].joined(separator: " ")
            return i == 0 && !continuing ? piece : " " + piece
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func duration(_ seconds: Double) -> Duration { .nanoseconds(Int64((seconds * 1e9).rounded())) }
}
