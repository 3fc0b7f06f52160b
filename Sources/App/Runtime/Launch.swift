import Conversation
import Foundation
import Live
import LiveSimulator
import Logging
import ParleyTime
import PulseAudio
import TUI

/// Everything the interactive program runs on, built before the terminal is taken over so a failure is a
/// plain message on a usable terminal.
struct Launch {
    let config: Config
    let simulator: LiveSimulator?
    let audio: AudioIO
    let mcp: MCPServers
    let tools: ToolRegistry
    let session: LiveSession
    let store: TranscriptStore?
    /// The conversation's sound beside its transcript (nil when the transcript is not saved).
    let recorder: ConversationRecorder?
    let terminal: any ConversationTerminal
    let renderer: FrameRenderer
    /// Images, the camera and the screen.
    let vision: VisionIO
    /// What the user should read before anything else (theme, keys, MCP, transcript problems).
    let problems: [String]
    let keyMap: KeyMap

    static func start(
        config: Config, demo: Bool, noAudio: Bool, resume: ResumePlan?, paths: Paths,
        events: EventQueue, time: TimeSource, logger: Logger
    ) async throws -> Launch {
        var simulator: LiveSimulator?
        let access: LiveAccess
        if demo {
            let sim = LiveSimulator(options: try DemoSimulator.options(), logger: logger, time: time)
            _ = try await sim.start()
            simulator = sim
            access = LiveAccess(backend: .geminiAPI, endpoint: sim.url, credential: .none, authorizer: nil, source: "the built-in simulator")
        } else {
            access = try await LiveAccess.prepared(config, time: time)
            logger.info("connecting to \(access.backend) with \(access.source)")
        }
        var problems: [String] = []
        let devices = noAudio
            ? SoundDevices.none("no audio (--no-audio): type with Tab")
            : SoundDevices.pulse(config: config, events: events, time: time) { [logger] in logger.warning("\($0)") }
        let audio = AudioIO(devices: devices, config: config, events: events, time: time)
        // Built-in tools a persona may turn on are registered from the start; the setup offers those that are on.
        var registry = ToolRegistry.builtIn(config.toolSettings(offering: config.personas), time: time)
        let (mcp, mcpProblems) = await MCPServers.start(config.mcp, into: &registry, logger: logger)
        problems += mcpProblems + config.unknownPersonaTools(in: registry)

        var store: TranscriptStore?
        if let resume {
            do {
                store = try TranscriptStore(continuing: resume.transcript)
            } catch {
                problems.append("\(error): this part is saved as a conversation of its own")
            }
        }
        do {
            if store == nil { store = try TranscriptStore(directory: config.transcriptDir ?? paths.transcripts) }
        } catch {
            store = nil
            problems.append("this conversation will not be saved: \(error)")
            logger.error("transcripts will not be saved: \(error)")
        }
        if let why = Paths.unwritable(paths.stateHome) { problems.append("\(why): the log, the voice and --resume will not be kept") }

        let terminal: Terminal
        do {
            terminal = try Terminal.start(Terminal.Options(time: time))
        } catch {
            audio.close()
            await mcp.stop()
            try? await simulator?.stop()
            throw ParleyError.usage("cannot take over the terminal: \(error)")
        }
        return assemble(
            config: config, access: access, audio: audio, tools: registry, mcp: mcp,
            simulator: simulator, store: store, terminal: terminal, screen: terminal.screen, problems: problems,
            resume: resume, events: events, time: time, logger: logger)
    }

    /// Wires the started parts together (nothing here can fail): the session on `transport` with reply audio
    /// going straight to `audio`, vision, the transcript, the theme and the keys. The runtime tests call it with
    /// fake sound devices, an in-memory terminal and the simulator.
    static func assemble(
        config: Config, access: LiveAccess, audio: AudioIO, tools: ToolRegistry,
        mcp: MCPServers, simulator: LiveSimulator?, store: TranscriptStore?, terminal: any ConversationTerminal,
        screen: any Screen, problems: [String], resume: ResumePlan?, events: EventQueue,
        time: TimeSource, logger: Logger, transport: any LiveTransport = WebSocketTransport()
    ) -> Launch {
        var problems = problems
        let context = ContextState(config: config, registry: tools)
        var setupConfig = config
        setupConfig.googleSearch = false
        let offered = context.setupTools(context.toolsOn)
        let session = LiveSession(
            configuration: access.configuration(
                setup: setupConfig.setup(tools: offered, manualActivity: config.mode == .ptt, backend: access.backend)),
            transport: transport,
            logger: logger,
            playback: { audio.perform(SpeakerCommand($0)) },
            time: time)
        audio.attach(session)
        let vision = VisionIO(settings: config.vision, wire: VideoWire(session: session, time: time)) { [events] in events.post($0) }
        if let handle = resume?.handle { session.restoreHandle(handle.secret, age: handle.age) }
        // Without a handle the first connection is a new session, and the session seeds it with these turns (the
        // reconnect path's seeding); with one they seed a fresh session if the service refuses the handle.
        if let resume { session.preloadContext(resume.seed.turns) }
        store?.onFailure = { [events] in events.post(.audioNotice($0)) }
        store?.append(.session(
            model: config.model, voice: config.voice, system: config.systemInstruction, continued: store?.continuing == true))
        let recorder = store.map { store in
            ConversationRecorder(base: (store.path as NSString).deletingPathExtension, format: config.recording.format, time: time) {
                [events, logger] e in
                if case .failed(let f) = e { logger.error("recording: \(f)") }
                if case .fellBehind(let s) = e { logger.warning("recording fell behind: \(s) s dropped") }
                events.post(.recording(e))
            }
        }
        if let recorder { audio.attach(recorder) }
        if config.recording.enabled {
            if let recorder {
                if case .failed(let f) = recorder.start() {
                    problems.append("not recording: \(f)")
                    logger.error("recording: \(f)")
                }
            } else {
                problems.append("not recording: the conversation is not being saved, and its recording goes beside the transcript")
            }
        }

        let themeResult = ThemeLoader.standard().load(config.theme)
        if let error = themeResult.error { problems.append("\(error) — using the default theme") }
        let keyMap = Self.keyMap(config.keys)
        if let problem = keyMap.problem { problems.append(problem) }
        return Launch(
            config: config, simulator: simulator, audio: audio, mcp: mcp, tools: tools, session: session, store: store,
            recorder: recorder, terminal: terminal, renderer: FrameRenderer(screen: screen, theme: themeResult.theme, keyMap: keyMap.map),
            vision: vision, problems: problems, keyMap: keyMap.map)
    }

    /// The state the first frame shows.
    func initialState(demo: Bool, noAudio: Bool, resume: ResumePlan?) -> AppState {
        var state = AppState(config: config, demo: demo, audioAvailable: audio.unavailable == nil, kitty: false)
        state.keyMap = keyMap
        state.ui.screen = terminal.screenSize
        state.echoProtection = audio.protectionDescription
        if let why = audio.unavailable {
            state.ui.banner = noAudio ? "text only (--no-audio): Tab to type" : "no sound — text only: Tab to type (details below)"
            if !noAudio { state.ui.transcript.append(.error, why) }
        }
        for problem in problems { state.ui.transcript.append(.error, problem) }
        state.vision = vision.initialState(framesAlways: config.vision.frames == .always)
        state.recording = recorder?.isRecording == true
        state.ui.header.recording = state.recording
        if let why = vision.unavailable { state.ui.transcript.append(.error, "\(why) — going on without it") }
        state.context = ContextState(config: config, registry: tools)
        state.toolServers = Dictionary(uniqueKeysWithValues: tools.tools.compactMap { k, v in v.server.map { (k, $0) } })
        state.toolPolicy = toolPolicy
        if let resume {
            Self.showEarlier(resume, in: &state.ui.transcript)
            // A torn last line was cut off before adding to the file: say that once, not also that it was not read.
            let cut = store?.cutOff ?? 0
            let unread = TranscriptReading(
                records: [], problems: resume.problems.filter { if case .tornLastLine = $0 { cut == 0 } else { true } }).unread
            if let unread { state.ui.transcript.append(.error, "\(resume.id): \(unread)") }
            if cut > 0 { state.ui.transcript.append(.error, "the torn last line of \(resume.id) (\(cut) bytes) was cut off before adding to it") }
            for line in resume.continuation(now: TimeSource.wallSeconds()) { state.ui.transcript.append(.system, line) }
            // The budget is per conversation: what the earlier parts spent still counts. Their usage records are
            // in the file this run adds to, so no `usageCarried` record is written unless it is a new file.
            state.usage.carry(Reducer.carriedUsage(resume.records, prices: state.usage.prices))
            if store?.path == resume.transcript { state.carryRecorded = true }
        }
        state.status = demo ? .demo : nil
        Reducer.refreshContext(&state)
        Reducer.refreshHeader(&state, now: 0)
        Reducer.refreshUsage(&state)
        return state
    }

    /// How each function runs: from a setup that declares every tool, so one turned on later runs as the
    /// config says too.
    var toolPolicy: ToolCallPolicy {
        var all = session.setup
        all.tools = config.setup(tools: tools.declarations, manualActivity: config.mode == .ptt).tools
        return ToolCallPolicy(model: LiveModel.traits(of: config.model), setup: all, registry: tools, configured: config.tools.scheduling)
    }

    /// Gives everything back in order; the terminal last but one, so the shell gets a clean screen.
    func stop() async {
        vision.stop()
        session.close()
        audio.close()
        // After the audio: nothing reaches the recorder any more, and the file gets its header or trailer.
        recorder?.close()
        terminal.stop()
        await mcp.stop()
        try? await simulator?.stop()
    }

    /// Shows a saved conversation's lines before it goes on, under a line that marks them as earlier.
    static func showEarlier(_ resume: ResumePlan, in transcript: inout TranscriptModel) {
        let first = resume.records.first(where: { $0.time != nil })?.time.flatMap(ConversationSummary.seconds)
        transcript.append(.system, "earlier in this conversation" + (first.map { " (\(HistoryPrinter.localTime($0, seconds: false)))" } ?? "") + ":")
        for case let turn? in resume.records.lazy.map(\.turn) {
            if turn.speaker == .user {
                transcript.append(.user, turn.text)
            } else {
                transcript.append(.model, turn.text, interrupted: turn.interrupted)
            }
        }
    }

    /// The key map with the config's overrides (`voice_menu = "V"` or `voiceMenu = ["V", "F2"]`).
    static func keyMap(_ overrides: [String: String]) -> (map: KeyMap, problem: String?) {
        guard !overrides.isEmpty else { return (.default, nil) }
        var converted: [String: [String]] = [:]
        for (name, keys) in overrides {
            let parts = name.split(separator: "_")
            let camel = parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
            converted[camel] = keys.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        switch KeyMap.default.overriding(converted) {
        case .success(let map): return (map, nil)
        case .failure(let e): return (.default, "config [keys]: \(e) — using the default keys")
        }
    }
}
