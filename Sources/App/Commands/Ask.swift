import ArgumentParser
import Foundation
import Live
import Logging
import TUI
import Conversation

/// One turn without the TUI.
struct Ask: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask one question (text or a WAV file) and print the transcripts.",
        discussion: """
            Like the full-screen app, ask reconnects after a transient close (and asks again if its question had \
            no answer yet), waits through a network outage, and continues in a new session if the service cannot \
            resume the old one. Failures print the close code, the server's reason and what to do.

            Exit status: 0 the turn completed · 3 the budget (--budget) was reached: the answer is printed whole, \
            nothing more is asked · 64 bad command line · 69 the service refused the request for good \
            (key, model or options, account: quota, billing, API disabled) · 75 gave up on a transient failure or \
            an outage after --timeout · 78 bad config file · 1 anything else.
            """
    )

    @Argument(help: "What to ask. Omit it when you use --audio.")
    var text: [String] = []

    @Option(help: ArgumentHelp("Ask with speech from a 16-bit PCM WAV file (any common rate; resampled to 16 kHz).", valueName: "in.wav"))
    var audio: String?

    @Option(name: .customLong("save-audio"), help: ArgumentHelp("Save the spoken reply as a 24 kHz WAV file.", valueName: "out.wav"))
    var saveAudio: String?

    @Option(name: .customLong("image"), help: ArgumentHelp("Show the model an image (PNG, JPEG, WebP, GIF) before the question; repeatable.", valueName: "file"))
    var images: [String] = []

    @Option(name: .customLong("video"), help: ArgumentHelp("Show the model a recorded clip (frames at 1 fps, its sound as your speech, in real time) before the question.", valueName: "clip"))
    var video: String?

    @Flag(help: "Print one JSON object per event instead of transcripts.")
    var json = false

    @Flag(name: .customLong("allow-shell"), help: "Let the model run shell commands (with tools.run_shell_command on); denied otherwise, since no one is there to confirm.")
    var allowShell = false

    @Flag(help: "Also print the model's thoughts (native-audio models send them as text; hidden by default).")
    var thoughts = false

    @Option(help: ArgumentHelp("Give up after this many seconds, outages included (exit 75).", valueName: "seconds"), transform: Seconds.parse)
    var timeout: Double = 120

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if text.isEmpty, audio == nil { throw ValidationError("give a question, e.g. parley ask \"what time is it\", or --audio in.wav") }
        if !text.isEmpty, audio != nil { throw ValidationError("give a question or --audio, not both") }
        if video != nil, audio != nil { throw ValidationError("give --video or --audio, not both (the clip's sound is the speech)") }
        if timeout <= 0 { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        NetworkThreads.useOne()
        let config = try report { try common.resolve() }
        if let refusal = TurnSize(text: text.joined(separator: " "), model: config.model).refusal {
            StandardStream.write("parley: \(refusal)\n", to: 2)
            throw ExitCode(64)
        }
        if let logFile = config.logFile { FileLogHandler.bootstrap(path: logFile) }
        let access: LiveAccess
        do { access = try await LiveAccess.prepared(config) } catch let e as ParleyError { throw report(e) }
        let speech = try report { try audio.map(AskAudio.loadQuestion) }
        let pictures = try report { try VisionAsk.load(images, resolution: config.vision.effectiveResolution) }
        for p in pictures { StandardStream.write(VisionAsk.line(for: p, json: json), to: 1) }
        let clip = try report { try video.map { try VideoClip.load($0, resolution: config.vision.effectiveResolution) } }
        if let clip { StandardStream.write(VideoAsk.line(for: clip, json: json), to: 1) }
        // A clip with sound is a spoken turn of its own; the question follows its answer.
        let clipSpoken = clip.map { !$0.audio.isEmpty } ?? false
        let persona = config.startingPersona
        var registry = ToolRegistry.builtIn(config.toolSettings(offering: persona.map { [$0] } ?? []))
        let (mcp, problems) = await MCPServers.start(config.mcp, into: &registry, logger: Logger(label: "parley.mcp"))
        for p in problems { StandardStream.write("parley: \(TerminalText.sanitized(p))\n", to: 2) }
        // `--persona` turns tools on and off as in the app.
        let tools = registry.keeping { config.toolOn($0.name, server: $0.server, under: persona) }
        let replyAudio = ReplyAudio()
        let latency = AskLatency()
        let usage = AskUsage(config: config)
        var oneTurn = config
        oneTurn.googleSearch = config.toolOn("google_search", server: nil, under: persona)
        oneTurn.modelOptions = ToolCallPolicy.oneTurn(config.modelOptions, model: LiveModel.traits(of: config.model), tools: tools)
        let setup = oneTurn.setup(tools: tools.declarations, manualActivity: speech != nil || clip != nil, backend: access.backend)
        let session = LiveSession(
            configuration: access.configuration(setup: setup),
            logger: { var l = Logger(label: "parley.ask"); l.logLevel = .error; return l }(),  // the printer says it in words
            playback: { command in
                if case .play(let pcm) = command {
                    latency.replyAudio()
                    replyAudio.append(pcm)
                }
            })
        let printer = AskPrinter(json: json, thoughts: thoughts)
        let runner = ToolRunner(registry: tools, policy: ToolCallPolicy(
            model: LiveModel.traits(of: setup.model), setup: setup, registry: tools, configured: config.tools.scheduling))
        let question = text.joined(separator: " ")

        let timeoutTask = Task { [timeout = timeout + Double(clip?.seconds ?? 0)] in
            try await Task.sleep(for: .seconds(timeout))
            session.close()
        }
        defer { timeoutTask.cancel() }
        session.start()
        var asked = false
        var questionAfterClip = clipSpoken
        var outcome: ParleyError?
        var completed = false
        var lastClose: CloseReason?
        var unpricedNoted = false
        loop: for await event in session.events {
            printer.print(event)
            if json, let line = latency.take(event) { StandardStream.write(line + "\n", to: 1) }
            if case .usage(let u) = event {
                let line = usage.take(u)
                if json { StandardStream.write(line + "\n", to: 1) }
                if config.budget != nil, !usage.state.total.isKnown, !unpricedNoted {
                    unpricedNoted = true
                    StandardStream.write("parley: the budget cannot be kept exactly: \(usage.state.total.long); set prices under [prices.\"\(usage.state.prices.model)\"]\n", to: 2)
                }
            }
            switch event {
            case .setupComplete where !asked:
                asked = true
                VisionAsk.send(pictures, over: session) { [speech, question, clip, pictures] in
                    if let clip {
                        VideoAsk.stream(clip, over: session, afterImages: !pictures.isEmpty) { if !clipSpoken { session.sendText(question) } }
                    } else if let speech {
                        session.activityStart()
                        for chunk in speech { session.sendAudio(chunk) }
                        latency.asked()
                        session.activityEnd()
                    } else {
                        latency.asked()
                        session.sendText(question)
                    }
                }
            case .toolCall(let calls):
                let allowShell = self.allowShell
                runner.run(calls, confirm: { call, text in
                    if !allowShell { StandardStream.write(TerminalText.sanitized("parley: denied \(call.name): \(text) (pass --allow-shell to allow it)\n"), to: 2) }
                    return allowShell
                }, finished: { _, _ in }, respond: { [json] answers in
                    AskPrinter.toolAnswers(answers, json: json)
                    session.sendToolResponse(answers)
                })
            case .toolCallCancellation(let ids):
                runner.cancel(ids)
            case .turnResent:
                latency.asked(again: true)
            case .turnComplete where asked && questionAfterClip && usage.overBudget:
                // The clip's answer spent the budget: the question is not asked.
                questionAfterClip = false
                session.close()
            case .turnComplete where asked && questionAfterClip:
                questionAfterClip = false
                session.sendText(question)
            case .turnComplete where asked:
                completed = true
                session.close()
            case .connectionClosed(let reason):
                lastClose = reason
            case .failed(let reason):
                outcome = .closed(reason)
                session.close()
            case .closed:
                break loop
            default:
                break
            }
        }
        printer.finish()
        if json, asked {
            StandardStream.write(latency.summaryLine + "\n", to: 1)
            StandardStream.write(usage.summaryJSON + "\n", to: 1)
        }
        if usage.state.ledger.turnCount > 0 { StandardStream.write("parley: \(usage.summaryLine)\n", to: 2) }
        await mcp.stop()
        if let saveAudio {
            try report { try AskAudio.saveReply(replyAudio.data, to: saveAudio) }
        }
        if let outcome { throw report(outcome) }
        if usage.overBudget { throw report(.budgetReached(usage.budgetMessage)) }
        if !completed {
            let offline = session.isOffline || !asked
            let last = lastClose.map { " (last: \($0.codeAndReason), \($0.message))" } ?? ""
            throw report(.gaveUp(offline
                ? "gave up after \(Int(timeout)) s: the Live service could not be reached\(last); try again later, raise --timeout, or check --endpoint"
                : "no answer within \(Int(timeout)) s\(last); raise --timeout, or try again"))
        }
    }
}
