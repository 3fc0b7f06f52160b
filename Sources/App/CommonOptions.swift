import ArgumentParser
import Foundation
import Live
import PulseAudio
import Conversation

/// Options every command that talks to Gemini shares.
struct CommonOptions: ParsableArguments {
    @Option(help: ArgumentHelp("WebSocket URL of the Live service (ws:// or wss://), e.g. a proxy or `parley simulate`.", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp("Live model id (default \(LiveModel.defaultID)).", valueName: "id"))
    var model: String?

    @Option(help: ArgumentHelp("Voice to start with (see `parley voices`; default Puck).", valueName: "name"))
    var voice: String?

    @Option(help: ArgumentHelp("System instruction text.", valueName: "text"))
    var system: String?

    @Option(name: .customLong("system-file"), help: ArgumentHelp("Read the system instruction from a file.", valueName: "file"))
    var systemFile: String?

    @Option(help: ArgumentHelp("Start as this [[persona]] from the config (its instruction, voice, thinking and tools; flags still win).", valueName: "name"))
    var persona: String?

    @Option(help: ArgumentHelp("PulseAudio source to record from (see `parley devices`).", valueName: "source"))
    var mic: String?

    @Option(help: ArgumentHelp("PulseAudio sink to play to (see `parley devices`).", valueName: "sink"))
    var speaker: String?

    @Option(help: ArgumentHelp("Colour theme: default, light, high-contrast, mono, or one in ~/.config/parley/themes.", valueName: "name"))
    var theme: String?

    @Option(help: ArgumentHelp("ptt (hold or tap Space to talk) or open (the server detects speech; barge-in).", valueName: "ptt|open"))
    var mode: String?

    @Option(help: ArgumentHelp("Config file (default $XDG_CONFIG_HOME/parley/config.toml).", valueName: "file"))
    var config: String?

    @Option(name: .customLong("log-file"), help: ArgumentHelp("Write the log here (default $XDG_STATE_HOME/parley/parley.log).", valueName: "file"))
    var logFile: String?

    @Flag(name: .customLong("no-audio"), help: "Run without sound: text turns only.")
    var noAudio = false

    @Flag(name: .customLong("echo-cancel"), help: "Load PulseAudio's echo canceller (same as --echo pulse).")
    var echoCancel = false

    @Option(name: .customLong("echo"), help: ArgumentHelp(
        "Echo protection: auto (parley's canceller in open mic), webrtc, pulse (PulseAudio's module), gate (mute the mic while parley speaks) or off (headphones).",
        valueName: "mode"))
    var echo: String?

    @Flag(name: .customLong("google-search"), help: "Let the model ground answers with Google Search.")
    var googleSearch = false

    @Option(help: ArgumentHelp("Thinking level for models that take one (gemini-3.8-live-extended-thinking: low, medium, high).", valueName: "level"))
    var thinking: String?

    @Option(help: ArgumentHelp("Language of the model's speech, a BCP-47 code such as en-US or de-DE.", valueName: "code"))
    var language: String?

    @Flag(name: .customLong("affective-dialog"), help: "Let the model adapt its tone to yours (models that have it; see `parley models`).")
    var affectiveDialog = false

    @Flag(name: .customLong("proactive-audio"), help: "Let the model decide not to answer input not meant for it (see `parley models`).")
    var proactiveAudio = false

    // Vision (see Vision/VisionSettings.swift).
    @Option(name: .customLong("media-resolution"), help: ArgumentHelp("Detail of images and frames: low, medium or high.", valueName: "level"))
    var mediaResolution: String?

    // Vertex AI and tokens (see LiveAccess.swift).
    @Flag(help: "Use Vertex AI (Google Cloud) instead of the Gemini API: application default credentials, or an API key in express mode.")
    var vertex = false

    @Option(help: ArgumentHelp("Google Cloud project for Vertex AI (default: GOOGLE_CLOUD_PROJECT, the credentials, gcloud's config).", valueName: "id"))
    var project: String?

    @Option(help: ArgumentHelp("Vertex AI location, e.g. us-central1 (default: GOOGLE_CLOUD_LOCATION, else global).", valueName: "name"))
    var location: String?

    @Option(name: .customLong("token-command"), help: ArgumentHelp(
        "A command that prints a token (bare, or {\"token\": …, \"expires_at\": …}), run before each connection that needs a new one: ephemeral tokens, or access tokens on Vertex AI.",
        valueName: "command"))
    var tokenCommand: String?

    @Option(help: ArgumentHelp("Stop and ask once the conversation has cost this many US dollars (ask exits with status 3); see `parley models --prices`.", valueName: "dollars"))
    var budget: Double?

    func validate() throws {
        if let budget, !(budget.isFinite && budget > 0) {
            throw ValidationError("--budget must be a positive amount of US dollars, e.g. 0.50 (got \(budget))")
        }
        if let endpoint, !(endpoint.hasPrefix("ws://") || endpoint.hasPrefix("wss://")) {
            throw ValidationError("--endpoint must start with ws:// or wss:// (got \(endpoint))")
        }
        if let voice, Voice.named(voice) == nil {
            throw ValidationError("no voice named \(voice); `parley voices` lists all 30")
        }
        if let mode, Config.Mode(rawValue: mode) == nil {
            throw ValidationError("--mode must be ptt or open (got \(mode))")
        }
        if let echo, EchoCancelMode(setting: echo) == nil {
            throw ValidationError("--echo must be \(EchoCancelMode.choices) (got \(echo))")
        }
        if let mediaResolution, MediaResolution(rawValue: mediaResolution.lowercased()) == nil {
            throw ValidationError("--media-resolution must be low, medium or high (got \(mediaResolution))")
        }
        if system != nil, systemFile != nil {
            throw ValidationError("give --system or --system-file, not both")
        }
    }

    /// The config file merged with these flags.
    func resolve(paths: Paths = Paths()) throws -> Config {
        let file = config ?? paths.configFile
        var c = try Config.load(path: file, required: config != nil)
        do {
            try LiveModel.traits(of: model ?? c.model).check(c.modelOptions)
        } catch {
            throw ParleyError.config(file: file, line: nil, key: error.option, problem: "not accepted by \(error.model): \(error.hint)")
        }
        var chosenPersona: Persona?
        if let persona, persona.caseInsensitiveCompare(Persona.none) != .orderedSame {
            let p = try c.persona(named: persona)
            c.adopt(p)
            chosenPersona = p
        }
        if let thinking { c.modelOptions.thinkingLevel = thinking.lowercased() }
        if let language { c.modelOptions.languageCode = language }
        if affectiveDialog { c.modelOptions.affectiveDialog = true }
        if proactiveAudio { c.modelOptions.proactiveAudio = true }
        if vertex { c.vertex.enabled = true }
        if let project { c.vertex.project = project }
        if let location { c.vertex.location = location }
        if let tokenCommand { c.auth.tokenCommand = tokenCommand }
        if model != nil { c.modelChosen = true }
        let backend: LiveModel.Backend = c.usesVertex() ? .vertex : .geminiAPI
        if !c.modelChosen { c.model = LiveModel.defaultID(on: backend) }
        let chosen = model ?? c.model
        if let p = chosenPersona, let problem = p.problem(on: chosen) { throw ParleyError.usage(problem) }
        do {
            try LiveModel.traits(of: chosen).check(c.modelOptions)
            try LiveModel.check(chosen, c.modelOptions, on: backend)
        } catch {
            throw ParleyError.usage("\(error) (`parley models` lists what each model takes)")
        }
        if LiveModel.shutDown.contains(chosen.hasPrefix("models/") ? String(chosen.dropFirst(7)) : chosen) {
            throw ParleyError.usage("\(chosen) has been shut down by Google; use --model \(LiveModel.defaultID) (`parley models` lists the others)")
        }
        if let endpoint { c.endpoint = endpoint }
        if let model { c.model = model }
        if let voice, let v = Voice.named(voice) {
            c.voice = v.name
            c.voiceChosen = true
        }
        if let system { c.systemInstruction = system }
        if let systemFile {
            guard let text = try? String(contentsOfFile: systemFile, encoding: .utf8) else {
                throw ParleyError.file(path: systemFile, problem: "cannot read the system instruction file")
            }
            c.systemInstruction = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let mic { c.mic = mic }
        if let speaker { c.speaker = speaker }
        if let theme { c.theme = theme }
        if let mode, let m = Config.Mode(rawValue: mode) { c.mode = m }
        if let logFile { c.logFile = logFile }
        if echoCancel { c.echoCancel = .pulse }
        if let echo, let m = EchoCancelMode(setting: echo) { c.echoCancel = m }
        if googleSearch { c.googleSearch = true }
        if let mediaResolution, let r = MediaResolution(rawValue: mediaResolution.lowercased()) { c.vision.mediaResolution = r }
        if let budget { c.budget = budget }
        return c
    }
}

extension Config {
    /// The credential from the environment (GEMINI_API_KEY, then GOOGLE_API_KEY) or the config file. With a
    /// custom endpoint and no key, none is sent (a local simulator needs none).
    func credential(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Credential {
        for name in ["GEMINI_API_KEY", "GOOGLE_API_KEY"] {
            if let v = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty { return Credential(v) }
        }
        if let apiKey, !apiKey.isEmpty { return Credential(apiKey.revealed) }
        if endpoint != nil { return .none }
        throw ParleyError.noAPIKey
    }

    /// The `setup` message for this configuration, with the model named as `backend` names it.
    func setup(tools: [Tool], manualActivity: Bool, backend: LiveBackend = .geminiAPI) -> Setup {
        var detection = AutomaticActivityDetection()
        if manualActivity {
            detection.disabled = true
        } else {
            detection.startOfSpeechSensitivity = startSensitivity
            detection.endOfSpeechSensitivity = endSensitivity
            detection.prefixPaddingMs = prefixPaddingMs
            detection.silenceDurationMs = silenceDurationMs
        }
        var allTools = tools
        if googleSearch { allTools.append(Tool(googleSearch: EmptyObject())) }
        var setup = Setup(
            model: backend.modelResource(model),
            generationConfig: GenerationConfig(responseModalities: ["AUDIO"], speechConfig: SpeechConfig(voiceName: voice)),
            systemInstruction: systemInstruction.map { Content(text: $0) },
            tools: allTools.isEmpty ? nil : allTools,
            realtimeInputConfig: RealtimeInputConfig(automaticActivityDetection: detection),
            inputAudioTranscription: EmptyObject(),
            outputAudioTranscription: EmptyObject(),
            sessionResumption: SessionResumptionConfig(),
            contextWindowCompression: ContextWindowCompression(slidingWindow: .init())
        )
        LiveModel.traits(of: model).apply(modelOptions, to: &setup)
        vision.apply(to: &setup)
        return setup.adapted(to: backend.kind)
    }
}
