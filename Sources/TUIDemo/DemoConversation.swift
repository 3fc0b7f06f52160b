import Conversation
import Live
import TUI

/// The other side of the demo's conversation: what parley's runtime and a live session would answer to the
/// reducer's effects, canned, with no network, no sound card and nothing saved. The conversation itself is
/// parley's own `AppState` and `Reducer`; only the answers are made up here.
struct DemoConversation {
    /// Until when the demo's "speaker" plays the last reply (the meters follow it).
    private(set) var speakingUntil = -Double.infinity
    /// Tool results not reported yet, with when they are due: tools take a moment, as real ones do.
    private var toolsDue: [(at: Double, event: AppEvent)] = []
    /// The conversation's context in tokens (about four characters a token), for each turn's usage.
    private var contextTokens = 400

    /// When the next tool result is due, for the loop's timeout.
    var nextDeadline: Double? { toolsDue.map(\.at).min() }

    /// The tool results whose time has come.
    mutating func due(now: Double) -> [AppEvent] {
        let ready = toolsDue.filter { $0.at <= now }
        toolsDue.removeAll { $0.at <= now }
        return ready.map(\.event)
    }

    /// Runs `event` through the reducer and each effect through `answer`, as parley's loop runs them through its
    /// effect runner; `terminal` carries out what only the terminal can (scrolling, Ctrl-Z).
    mutating func apply(_ event: AppEvent, to s: inout AppState, now: Double, terminal: (Effect, AppState) -> [AppEvent]) {
        Reducer.apply(event, to: &s, now: { now }) { effect, state in answer(effect, now: now) ?? terminal(effect, state) }
    }

    /// The events an effect reports back, or nil for the effects the terminal carries out.
    private mutating func answer(_ effect: Effect, now: Double) -> [AppEvent]? {
        switch effect {
        case .mic(.close(let id)):
            return [.micClosed(id: id)]
        case .mic(.open), .speaker:
            return []
        case .live(let command):
            return session(command, now: now)
        case .runTools(let calls):
            for c in calls {
                guard let a = Self.toolAnswers[c.name] else { continue }
                toolsDue.append((now + a.seconds, .toolFinished(id: c.id, outcome: a.outcome, result: a.result)))
            }
            return []
        case .cancelTools, .answerConfirmation, .answerTools, .record, .saveResumeHandle, .rememberVoice, .quit:
            // Nothing is saved and no tool really runs; quitting is the state's `quitting`.
            return []
        case .export:
            return [.exported(.failure(ExportFailure(message: "the demo saves nothing to export")))]
        case .vision(.complete(let word)):
            return [.vision(.completed(word: word, completion: nil))]
        case .vision(.load):
            return [.vision(.failed("the demo attaches no images"))]
        case .vision(.send), .vision(.share), .vision(.talking):
            return []
        case .recording:
            return [.recording(.failed(RecordingFailure(message: "the demo records nothing", hint: "parley itself records with R")))]
        case .editInstruction:
            return [.instructionEdited(.failed("the demo opens no editor"))]
        case .scroll, .suspend:
            return nil
        }
    }

    /// A session that is always connected and answers at once.
    private mutating func session(_ command: SessionCommand, now: Double) -> [AppEvent] {
        switch command {
        case .sendText(let text):
            return reply(to: text, now: now)
        case .activityEnd:
            return [.live(.inputTranscription("(the demo hears no microphone)", finished: true))]
                + reply(to: nil, now: now)
        case .switchVoice, .switchMode, .changeThinking:
            // A new connection with the new setup: the reducer applies what waited for it.
            return [.live(.connecting(attempt: 0, resuming: true)), .live(.setupComplete(resumed: true))]
        case .changeContext(let change, _):
            return [.live(.contextChanged(change, via: .contextUpdate))]
        case .activityStart, .audioStreamEnd, .retryNow:
            return []
        }
    }

    private mutating func reply(to text: String?, now: Double) -> [AppEvent] {
        let words = text.map { "(demo) You said: \($0)" }
            ?? "(demo) There is no microphone here: Tab to type, v for voices, p for personas, ? for keys."
        speakingUntil = now + 0.3 * Double(words.split(separator: " ").count)
        return [
            .live(.outputTranscription(words, finished: true)),
            .live(.usage(usage(user: text ?? "", model: words))),
            .live(.turnComplete(reason: nil)),
        ]
    }

    /// A turn's `usageMetadata`: the whole context in, the reply out.
    private mutating func usage(user: String, model: String) -> UsageMetadata {
        let asked = user.utf8.count / 4 + 1, answered = model.utf8.count / 4 + 1
        contextTokens += asked
        defer { contextTokens += answered }
        return UsageMetadata(promptTokenCount: contextTokens, responseTokenCount: answered, totalTokenCount: contextTokens + answered)
    }

    /// How the demo's tools end and after how long; a tool not listed keeps running (a long search).
    static let toolAnswers: [String: (seconds: Double, outcome: ToolOutcome, result: String)] = [
        "get_weather": (0.42, .ok, #"{"temp":21,"sky":"sunny"}"#),
        "run_shell": (2.5, .denied, "denied by the user"),
    ]

    /// The demo's MCP tools (`t` lists them and turns them on and off), by server.
    static let mcpTools = [
        (name: "get_weather", server: "wx", description: "The weather in a city"),
        (name: "search", server: "web", description: "Search the web"),
    ]

    static let personas = [
        Persona(name: "Pirate", system: "Talk like a pirate.", voice: "Fenrir", greeting: "Say ahoy."),
        Persona(name: "Tutor", system: "Explain step by step, and ask before moving on.", thinking: "high"),
    ]

    /// The conversation so far when the demo starts: turns, tool calls and their usage, as the session would
    /// have reported them, `start` seconds ago.
    static let opening: [(user: String, tools: [FunctionCall], model: String)] = [
        ("Hello! What can you do?", [],
         "I can answer questions out loud, look things up with tools, and switch voices whenever you like."),
        ("What's the weather like in Tokyo today?", [FunctionCall(id: "1", name: "get_weather", args: ["city": "Tokyo"])],
         "It's sunny in Tokyo, around 21 degrees, with a light breeze from the bay. A good day for a walk along the Sumida river."),
        ("Clear out /tmp/x, and find what's on in Tokyo.", [
            FunctionCall(id: "2", name: "run_shell", args: ["cmd": "rm -rf /tmp/x"]),
            FunctionCall(id: "3", name: "search", args: ["q": "tokyo events"]),
        ], "You said no to the shell command, so /tmp/x is untouched; the event search is still running."),
        ("東京の天気は？ 😀 ありがとう", [], "晴れです。気温は21度くらいです。"),
    ]

    /// parley's starting state with the opening conversation run through the reducer, as of `now`.
    static func startingState(screen: Size, now: Double) -> AppState {
        let model = LiveModel.defaultID
        var s = AppState(
            model: model, voice: "Puck", mode: .ptt,
            usage: UsageState(model: model, backend: .aiStudio, table: .published, slidingWindow: true, budget: nil),
            demo: true, audioAvailable: true, kitty: false)
        s.ui.screen = screen
        s.echoProtection = "echo: headphones"
        s.toolServers = Dictionary(uniqueKeysWithValues: mcpTools.map { ($0.name, $0.server) })
        s.context = ContextState(
            base: BaseSettings(systemInstruction: nil, voice: "Puck", thinking: nil, builtInToolsOn: []), personas: personas,
            starting: nil, ownTools: [], mcpTools: mcpTools.map { ($0.name, $0.server) },
            declarations: Dictionary(uniqueKeysWithValues: mcpTools.map { ($0.name, FunctionDeclaration(name: $0.name, description: $0.description)) }))
        for i in 0..<6 { s.ui.transcript.append(.system, "demo line \(i + 1) of the scrollback") }
        var demo = DemoConversation()
        var t = now - 90
        func feed(_ e: AppEvent, after seconds: Double) {
            t += seconds
            // Tool results come in at their own time.
            while let due = demo.nextDeadline, due <= t {
                for done in demo.due(now: due) { demo.apply(done, to: &s, now: due) { _, _ in [] } }
            }
            demo.apply(e, to: &s, now: t) { _, _ in [] }
        }
        feed(.live(.setupComplete(resumed: false)), after: 0)
        for turn in opening {
            feed(.live(.inputTranscription(turn.user, finished: true)), after: 6)
            if !turn.tools.isEmpty { feed(.live(.toolCall(turn.tools)), after: 0.5) }
            feed(.live(.outputTranscription(turn.model, finished: true)), after: 3)
            feed(.live(.usage(demo.usage(user: turn.user, model: turn.model))), after: 0.2)
            feed(.live(.turnComplete(reason: nil)), after: 0)
        }
        feed(.tick, after: now - t)
        return s
    }
}
