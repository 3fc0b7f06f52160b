import ArgumentParser
import Foundation
import Live
import Logging

/// One turn without the TUI.
struct Ask: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask one question (text or a WAV file) and print the transcripts.",
        discussion: """
            Exits 0 when the model's turn is complete. On failure it prints the close code, the server's reason
            and what to do, and exits non-zero (69 when the service refused the request).
            """
    )

    @Argument(help: "What to ask. Omit it when you use --audio.")
    var text: [String] = []

    @Option(help: ArgumentHelp("Ask with speech from a 16-bit PCM WAV file (any common rate; resampled to 16 kHz).", valueName: "in.wav"))
    var audio: String?

    @Option(name: .customLong("save-audio"), help: ArgumentHelp("Save the spoken reply as a 24 kHz WAV file.", valueName: "out.wav"))
    var saveAudio: String?

    @Flag(help: "Print one JSON object per event instead of transcripts.")
    var json = false

    @Flag(name: .customLong("allow-shell"), help: "Let the model run shell commands (with tools.run_shell_command on); denied otherwise, since no one is there to confirm.")
    var allowShell = false

    @Option(help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"))
    var timeout: Double = 120

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if text.isEmpty, audio == nil { throw ValidationError("give a question, e.g. parley ask \"what time is it\", or --audio in.wav") }
        if !text.isEmpty, audio != nil { throw ValidationError("give a question or --audio, not both") }
        if timeout <= 0 { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let config = try report { try common.resolve() }
        let credential = try report { try config.credential() }
        let speech = try report { try audio.map(AskAudio.loadQuestion) }
        var registry = ToolRegistry.builtIn(config.tools)
        let (mcp, problems) = await MCPServers.start(config.mcp, into: &registry, logger: Logger(label: "parley.mcp"))
        for p in problems { StandardStream.write("parley: \(p)\n", to: 2) }
        let tools = registry
        var policy = ConnectionMachine.Policy()
        policy.reconnects = false
        let replyAudio = ReplyAudio()
        let session = LiveSession(
            configuration: LiveConfiguration(
                endpoint: config.endpoint, credential: credential,
                setup: config.setup(tools: tools.declarations, manualActivity: speech != nil), policy: policy),
            logger: Logger(label: "parley.ask"),
            playback: { command in
                if case .play(let pcm) = command { replyAudio.append(pcm) }
            })
        let printer = AskPrinter(json: json)
        let runner = ToolRunner(registry: tools)
        let question = text.joined(separator: " ")

        let timeoutTask = Task {
            try await Task.sleep(for: .seconds(timeout))
            session.close()
        }
        defer { timeoutTask.cancel() }
        session.start()
        var asked = false
        var outcome: ParleyError?
        var completed = false
        loop: for await event in session.events {
            printer.print(event)
            switch event {
            case .setupComplete where !asked:
                asked = true
                if let speech {
                    session.activityStart()
                    for chunk in speech { session.sendAudio(chunk) }
                    session.activityEnd()
                } else {
                    session.sendText(question)
                }
            case .toolCall(let calls):
                let allowShell = self.allowShell
                runner.run(calls, confirm: { call, text in
                    if !allowShell { StandardStream.write("parley: denied \(call.name): \(text) (pass --allow-shell to allow it)\n", to: 2) }
                    return allowShell
                }, finished: { _, _ in }, respond: { [json] answers in
                    AskPrinter.toolAnswers(answers, json: json)
                    session.sendToolResponse(answers)
                })
            case .toolCallCancellation(let ids):
                runner.cancel(ids)
            case .turnComplete:
                completed = true
                session.close()
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
        await mcp.stop()
        if let saveAudio {
            try report { try AskAudio.saveReply(replyAudio.data, to: saveAudio) }
        }
        if let outcome { throw report(outcome) }
        if !completed {
            throw report(.usage("no answer within \(Int(timeout)) s (raise --timeout, or check --endpoint)"))
        }
    }
}
