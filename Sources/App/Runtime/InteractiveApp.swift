import Foundation
import Live
import LiveSimulator
import Logging
import PulseAudio
import Synchronization
import TUI

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen conversation: one `poll()` on stdin, the terminal's signal pipe and the event queue; each
/// wake drains the queue through the reducer, runs the effects and redraws what changed.
final class InteractiveApp {
    let config: Config
    let demo: Bool
    let noAudio: Bool
    let resume: ResumeStore.Saved?
    let resumeAge: Double
    let paths: Paths
    let logger = Logger(label: "parley")
    let clock = ContinuousClock()
    let epoch: ContinuousClock.Instant
    let events = EventQueue()

    init(config: Config, demo: Bool, noAudio: Bool, resume: (ResumeStore.Saved, age: Double)?, paths: Paths) {
        self.config = config
        self.demo = demo
        self.noAudio = noAudio
        self.resume = resume?.0
        resumeAge = resume?.age ?? 0
        self.paths = paths
        epoch = clock.now
    }

    var now: Double {
        let d = clock.now - epoch
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs until the user quits; returns the exit status.
    func run() async throws -> Int32 {
        // The simulator, the session and the devices come up before the terminal is taken over, so a failure
        // here is a plain message on a usable terminal.
        var simulator: LiveSimulator?
        var endpoint = config.endpoint
        var credential: Credential
        if demo {
            let sim = LiveSimulator(options: try DemoSimulator.options(), logger: logger)
            _ = try await sim.start()
            simulator = sim
            endpoint = sim.url
            credential = .none
        } else {
            credential = try config.credential()
        }
        let audio = AudioIO(config: config, noAudio: noAudio, events: events) { [logger] in logger.warning("\($0)") }
        var registry = ToolRegistry.builtIn(config.tools)
        let (mcp, mcpProblems) = await MCPServers.start(config.mcp, into: &registry, logger: logger)
        let tools = registry
        let session = LiveSession(
            configuration: LiveConfiguration(
                endpoint: endpoint, credential: credential,
                setup: config.setup(tools: tools.declarations, manualActivity: config.mode == .ptt)),
            logger: logger,
            playback: { audio.playbackCommand($0) })
        audio.attach(session)
        audio.setManualActivity(config.mode == .ptt)
        if let resume { session.restoreHandle(resume.handle, age: resumeAge) }

        let store: TranscriptStore?
        var launchProblems: [String] = []
        do {
            store = try TranscriptStore(directory: config.transcriptDir ?? paths.transcripts)
        } catch {
            store = nil
            logger.error("transcripts will not be saved: \(error)")
            launchProblems.append("this conversation will not be saved: \(error)")
        }
        if let why = Paths.unwritable(paths.stateHome) { launchProblems.append("\(why): the log, the voice and --resume will not be kept") }
        store?.onFailure = { [events] in events.post(.audioNotice($0)) }
        store?.append(.session(model: config.model, voice: config.voice))

        let terminal: Terminal
        do {
            terminal = try Terminal.start()
        } catch {
            audio.close()
            await mcp.stop()
            try? await simulator?.stop()
            throw ParleyError.usage("cannot take over the terminal: \(error)")
        }
        defer { terminal.stop() }

        let themeResult = ThemeLoader.standard().load(config.theme)
        let keyMap = Self.keyMap(config.keys)
        let renderer = FrameRenderer(screen: terminal.screen, theme: themeResult.theme, keyMap: keyMap.map)

        var state = AppState(config: config, demo: demo, audioAvailable: audio.unavailable == nil, kitty: false)
        state.keyMap = keyMap.map
        state.ui.screen = terminal.screen.size
        if let why = audio.unavailable {
            state.ui.banner = noAudio ? "text only (--no-audio): Tab to type" : "no sound — text only: Tab to type (details below)"
            if !noAudio { state.ui.transcript.append(.error, why) }
        }
        state.ui.meters.echoProtection = config.mode == .open ? audio.protectionDescription : nil
        if let error = themeResult.error { state.ui.transcript.append(.error, "\(error) — using the default theme") }
        if let problem = keyMap.problem { state.ui.transcript.append(.error, problem) }
        for problem in mcpProblems { state.ui.transcript.append(.error, problem) }
        for problem in launchProblems { state.ui.transcript.append(.error, problem) }
        state.toolServers = Dictionary(uniqueKeysWithValues: tools.tools.compactMap { k, v in v.server.map { (k, $0) } })
        if let resume {
            Self.showEarlier(resume.transcript, in: &state.ui.transcript)
            state.ui.transcript.append(.system, "resuming the conversation from \(Int(resumeAge / 60)) min ago")
        }
        state.ui.status = demo ? "DEMO: talking to the built-in simulator — no key, no network" : nil

        let pump = Task { [events] in
            for await e in session.events { events.post(.live(e)) }
        }
        let toolRunner = ToolRunner(registry: tools)
        let confirmations = Confirmations()
        session.start()
        renderer.render(state.ui, dirty: .all)
        if let launched = Self.processAge() { logger.info("first frame drawn \(Int((launched * 1000).rounded())) ms after launch") }
        var drawn = state.ui
        var lastMeterDraw = 0.0

        func perform(_ effect: Effect) {
            switch effect {
            case .startTalking: audio.startTalking()
            case .stopTalking: audio.stopTalking()
            case .setOpenMic(let open): audio.setOpenMic(open)
            case .sendText(let text): session.sendText(text)
            case .interruptPlayback: audio.interruptReply()
            case .switchVoice(let name):
                let requireHandle = session.hasResumptionHandle || state.modelResponding
                session.reconfigure(requireHandle: requireHandle) { $0.generationConfig?.speechConfig = SpeechConfig(voiceName: name) }
            case .switchMode(let mode):
                var c = config
                c.mode = mode
                let next = c.setup(tools: tools.declarations, manualActivity: mode == .ptt).realtimeInputConfig
                audio.setManualActivity(mode == .ptt)
                state.ui.meters.echoProtection = mode == .open ? audio.protectionDescription : nil
                session.reconfigure(requireHandle: session.hasResumptionHandle || state.modelResponding) { $0.realtimeInputConfig = next }
            case .runTools(let calls):
                let events = self.events
                toolRunner.run(calls, confirm: { call, detail in
                    await confirmations.ask(call.id) { events.post(.confirmTool(id: call.id, name: call.name, detail: detail)) }
                }, finished: { a, outcome in
                    events.post(.toolFinished(id: a.id, outcome: outcome, result: a.response.compactText))
                }, respond: { session.sendToolResponse($0) })
            case .cancelTools(let ids):
                for id in ids { confirmations.answer(id, yes: false) }
                toolRunner.cancel(ids)
            case .answerConfirmation(let id, let yes):
                confirmations.answer(id, yes: yes)
            case .record(let r): store?.append(r)
            case .scroll(let cmd): renderer.scrollTranscript(cmd, in: &state.ui)
            case .seedTranscript:
                session.seedContext(Self.context(from: state.ui.transcript))
            case .export:
                if let store {
                    let md = (store.path as NSString).deletingPathExtension + ".md"
                    let records = (try? TranscriptStore.read(store.path)) ?? []
                    let ok = FileManager.default.createFile(atPath: md, contents: Data(TranscriptStore.markdown(records, title: "parley conversation").utf8))
                    state.ui.status = ok ? "exported to \(md)" : "could not write \(md)"
                } else {
                    state.ui.status = "this session is not being saved, so there is nothing to export"
                }
            case .quit: break
            }
        }

        func apply(_ event: AppEvent) {
            if case .live(.resumptionUpdate(true)) = event, let (handle, age) = session.resumptionHandle {
                ResumeStore(path: paths.resumeFile).save(.init(
                    handle: handle, savedAt: Date().timeIntervalSince1970 - age, model: config.model,
                    voice: state.voice, transcript: store?.path))
            }
            let voiceBefore = state.voice
            for effect in Reducer.reduce(&state, event, now: now) { perform(effect) }
            if state.voice != voiceBefore { RememberedState(voice: state.voice).save(paths.stateFile) }
        }

        while !state.quitting {
            // Wait.
            let t = now
            // Meters refresh at 30 fps while talking or playing, 5 fps while the mic merely hears the room,
            // and not at all when everything is silent: an idle parley sleeps in poll().
            let speakerActive = (audio.playback?.levels().rmsDBFS ?? -100) > -90 || state.ui.meters.speaker.level > -90
            let meterInterval: Double? = state.micOpen || speakerActive ? 1.0 / 30
                : state.ui.meters.mic.level > -90 || (audio.capture?.levels().rmsDBFS ?? -100) > -90 ? 0.2 : nil
            var deadline = [terminal.inputDeadline, state.nextDeadline(now: t)].compactMap { $0 }.min()
            if let meterInterval { deadline = min(deadline ?? .infinity, lastMeterDraw + meterInterval) }
            let timeout: Int32 = deadline.map { Int32(max(0, min(60_000, ($0 - t) * 1000)).rounded(.up)) } ?? -1
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: terminal.signalFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { break }

            // Apply.
            let signals = terminal.takeSignals()
            if signals.contains(.resize) {
                state.ui.screen = terminal.handleResize()
                renderer.invalidate()
                drawn = UIState()
            }
            if !signals.isDisjoint(with: [.interrupt, .terminate, .hangup]) { apply(.quitRequested) }
            if signals.contains(.suspend) || signals.contains(.resumed) {
                // kill -TSTP: the terminal is given back before stopping. SIGCONT (after a SIGSTOP): taken again.
                if signals.contains(.suspend) {
                    apply(.suspending)
                    terminal.suspend()
                } else {
                    terminal.retake()
                }
                state.ui.screen = terminal.screen.size
                renderer.invalidate()
                drawn = UIState()
            }
            if fds[0].revents != 0 {
                for input in terminal.readInput(now: now) {
                    if input == .key(.ctrl("z")) {
                        // Ctrl-Z: the mic stays closed while stopped; the shell gets its terminal back.
                        apply(.suspending)
                        terminal.suspend()
                        state.ui.screen = terminal.screen.size
                        renderer.invalidate()
                        drawn = UIState()
                        continue
                    }
                    apply(.input(input))
                }
            } else {
                for input in terminal.flushInput(now: now) { apply(.input(input)) }
            }
            if terminal.keyboardProtocol == .kitty, state.ptt.mode != .kitty { apply(.input(.kittyFlags(11))) }
            for e in events.drain() { apply(e) }
            apply(.tick)

            // Draw.
            let tNow = now
            if tNow - lastMeterDraw >= (meterInterval ?? 0) - 0.001 {
                state.ui.meters.mic = Self.reading(audio.capture?.levels())
                state.ui.meters.speaker = Self.reading(audio.playback?.levels())
                lastMeterDraw = tNow
            }
            let dirty = DirtyRegions.changed(from: drawn, to: state.ui)
            if !dirty.isEmpty {
                renderer.render(state.ui, dirty: dirty)
                drawn = state.ui
            }
        }

        // Leave: everything torn down in order, the handle kept for --resume.
        confirmations.answerAll(yes: false)
        toolRunner.cancelAll()
        session.close()
        pump.cancel()
        audio.close()
        await mcp.stop()
        try? await simulator?.stop()
        store?.close()
        // A transcript that could not be saved whole is a failed run (EX_IOERR).
        return store?.failure == nil ? 0 : 74
    }

    /// Seconds since this process started, from /proc (10 ms resolution).
    static func processAge() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let start = Double(fields[19]), let up = Double(uptime.split(separator: " ")[0]) else { return nil }
        return up - start / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func reading(_ r: PulseAudio.LevelReading?) -> TUI.LevelReading {
        guard let r else { return TUI.LevelReading() }
        // Whole decibels: finer changes do not move the bar, so they should not cost a redraw.
        func q(_ d: Double) -> Double { d.isFinite ? d.rounded() : d }
        return TUI.LevelReading(level: q(r.rmsDBFS), peak: q(r.heldPeakDBFS), clipped: r.isClipping)
    }

    /// The transcript as context turns for a new session.
    static func context(from transcript: TranscriptModel) -> [Content] {
        transcript.entries.compactMap { e in
            let text = (e.text + e.interim).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return nil }
            switch e.speaker {
            case .user: return Content(role: "user", text: text)
            case .model: return Content(role: "model", text: text)
            case .system, .error: return nil
            }
        }
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
