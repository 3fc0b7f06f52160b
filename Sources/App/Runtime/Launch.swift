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
    let terminal: Terminal
    let renderer: FrameRenderer
    /// Images, the camera and the screen.
    let vision: VisionIO
    /// What the user should read before anything else (theme, keys, MCP, transcript problems).
    let problems: [String]
    let keyMap: KeyMap

    static func start(
        config: Config, demo: Bool, noAudio: Bool, resume: (ResumeStore.Saved, age: Double)?, paths: Paths,
        events: EventQueue, time: TimeSource, logger: Logger
    ) async throws -> Launch {
        var simulator: LiveSimulator?
        let access: LiveAccess
        if demo {
            let sim = LiveSimulator(options: try DemoSimulator.options(), logger: logger)
            _ = try await sim.start()
            simulator = sim
            access = LiveAccess(backend: .geminiAPI, endpoint: sim.url, credential: .none, authorizer: nil, source: "the built-in simulator")
        } else {
            access = try await LiveAccess.prepared(config, time: time)
            logger.info("connecting to \(access.backend) with \(access.source)")
        }
        var problems: [String] = []
        let audio = AudioIO(config: config, noAudio: noAudio, events: events) { [logger] in logger.warning("\($0)") }
        var registry = ToolRegistry.builtIn(config.tools)
        let (mcp, mcpProblems) = await MCPServers.start(config.mcp, into: &registry, logger: logger)
        problems += mcpProblems
        let tools = registry
        let session = LiveSession(
            configuration: access.configuration(
                setup: config.setup(tools: tools.declarations, manualActivity: config.mode == .ptt, backend: access.backend)),
            logger: logger,
            playback: { audio.playbackCommand($0) })
        audio.attach(session)
        let vision = VisionIO(settings: config.vision, wire: VideoWire(session: session)) { [events] in events.post($0) }
        if let resume { session.restoreHandle(resume.0.handle, age: resume.age) }
        if let path = resume?.0.transcript, let records = try? TranscriptStore.read(path) {
            // Seeds a fresh session if the service refuses the saved handle.
            session.preloadContext(records.compactMap { r in
                guard r.kind == "user" || r.kind == "model", let text = r.text, !text.isEmpty else { return nil }
                return Content(role: r.kind, text: text)
            })
        }

        let store: TranscriptStore?
        do {
            store = try TranscriptStore(directory: config.transcriptDir ?? paths.transcripts)
        } catch {
            store = nil
            problems.append("this conversation will not be saved: \(error)")
            logger.error("transcripts will not be saved: \(error)")
        }
        if let why = Paths.unwritable(paths.stateHome) { problems.append("\(why): the log, the voice and --resume will not be kept") }
        store?.onFailure = { [events] in events.post(.audioNotice($0)) }
        store?.append(.session(model: config.model, voice: config.voice))

        let terminal: Terminal
        do {
            terminal = try Terminal.start(Terminal.Options(time: time))
        } catch {
            audio.close()
            await mcp.stop()
            try? await simulator?.stop()
            throw ParleyError.usage("cannot take over the terminal: \(error)")
        }
        let themeResult = ThemeLoader.standard().load(config.theme)
        if let error = themeResult.error { problems.append("\(error) — using the default theme") }
        let keyMap = Self.keyMap(config.keys)
        if let problem = keyMap.problem { problems.append(problem) }
        return Launch(
            config: config, simulator: simulator, audio: audio, mcp: mcp, tools: tools, session: session, store: store,
            terminal: terminal, renderer: FrameRenderer(screen: terminal.screen, theme: themeResult.theme, keyMap: keyMap.map),
            vision: vision, problems: problems, keyMap: keyMap.map)
    }

    /// The state the first frame shows.
    func initialState(demo: Bool, noAudio: Bool, resume: (ResumeStore.Saved, age: Double)?) -> AppState {
        var state = AppState(config: config, demo: demo, audioAvailable: audio.unavailable == nil, kitty: false)
        state.keyMap = keyMap
        state.ui.screen = terminal.screen.size
        state.echoProtection = audio.protectionDescription
        if let why = audio.unavailable {
            state.ui.banner = noAudio ? "text only (--no-audio): Tab to type" : "no sound — text only: Tab to type (details below)"
            if !noAudio { state.ui.transcript.append(.error, why) }
        }
        for problem in problems { state.ui.transcript.append(.error, problem) }
        state.vision = vision.initialState(framesAlways: config.vision.frames == .always)
        if let why = vision.unavailable { state.ui.transcript.append(.error, "\(why) — going on without it") }
        state.toolServers = Dictionary(uniqueKeysWithValues: tools.tools.compactMap { k, v in v.server.map { (k, $0) } })
        state.toolPolicy = ToolCallPolicy(
            model: LiveModel.traits(of: config.model), setup: session.setup, registry: tools, configured: config.tools.scheduling)
        if let resume {
            Self.showEarlier(resume.0.transcript, in: &state.ui.transcript)
            state.ui.transcript.append(.system, "resuming the conversation from \(Int(resume.age / 60)) min ago")
        }
        state.ui.status = demo ? "DEMO: talking to the built-in simulator — no key, no network" : nil
        Reducer.refreshHeader(&state, now: 0)
        return state
    }

    /// Gives everything back in order; the terminal last but one, so the shell gets a clean screen.
    func stop() async {
        vision.stop()
        session.close()
        audio.close()
        terminal.stop()
        await mcp.stop()
        try? await simulator?.stop()
    }

    /// Shows a saved session's lines before a resumed conversation.
    static func showEarlier(_ path: String?, in transcript: inout TranscriptModel) {
        guard let path, let records = try? TranscriptStore.read(path) else { return }
        for r in records {
            switch r.kind {
            case "user": transcript.append(.user, r.text ?? "")
            case "model": transcript.append(.model, r.text ?? "", interrupted: r.interrupted == true)
            default: break
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
