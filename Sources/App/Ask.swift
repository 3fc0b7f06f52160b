import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
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

    @Option(name: .customLong("image"), help: ArgumentHelp("Show the model an image (PNG, JPEG, WebP, GIF) before the question; repeatable.", valueName: "file"))
    var images: [String] = []

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
        let pictures = try report { try VisionAsk.load(images, resolution: config.vision.effectiveResolution) }
        for p in pictures { StandardStream.write(VisionAsk.line(for: p, json: json), to: 1) }
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
                VisionAsk.send(pictures, over: session) { [speech, question] in
                    if let speech {
                        session.activityStart()
                        for chunk in speech { session.sendAudio(chunk) }
                        session.activityEnd()
                    } else {
                        session.sendText(question)
                    }
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

/// Writes to stdout/stderr without Foundation's trapping on a closed pipe: `parley ask --json | head` ends the
/// way any Unix filter does when its reader goes away.
enum StandardStream {
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE {
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                }
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }
}

/// Collects reply audio from the receive path.
final class ReplyAudio: Sendable {
    private let buffer = Mutex(Data())
    func append(_ d: Data) { buffer.withLock { $0.append(d) } }
    var data: Data { buffer.withLock { $0 } }
}

/// Prints ask's events as transcripts or JSON lines.
final class AskPrinter {
    let json: Bool
    private var section: String?

    init(json: Bool) { self.json = json }

    func print(_ event: LiveEvent) {
        if json {
            if let line = Self.jsonLine(event) { emit(line + "\n") }
            return
        }
        switch event {
        case .inputTranscription(let text, _): stream("you", text)
        case .outputTranscription(let text, _): stream("gemini", text)
        case .modelText(let text): stream("gemini", text)
        case .interrupted: emit(" [interrupted]")
        case .toolCall(let calls):
            endLine()
            for c in calls { emit("[tool] \(c.name)(\(c.args.compactText))\n") }
        case .reconnecting(let attempt, let delay, let after):
            endLine()
            emitError("connection lost (\(after.description)); reconnecting in \(String(format: "%.1f", delay)) s (attempt \(attempt))")
        default: break
        }
    }

    /// Tool answers, from the runner's task: touches no printer state.
    static func toolAnswers(_ answers: [FunctionResponse], json: Bool) {
        if json {
            for a in answers {
                StandardStream.write(#"{"event":"toolResponse","id":\#(Self.quote(a.id)),"name":\#(Self.quote(a.name)),"response":\#(a.response.compactText)}"# + "\n", to: 1)
            }
        }
    }

    func finish() { endLine() }

    private func stream(_ who: String, _ text: String) {
        if section != who {
            endLine()
            emit("\(who): ")
            section = who
        }
        emit(text)
    }

    private func endLine() {
        if section != nil { emit("\n") }
        section = nil
    }

    private func emit(_ s: String) { StandardStream.write(s, to: 1) }
    private func emitError(_ s: String) { StandardStream.write("parley: \(s)\n", to: 2) }

    static func quote(_ s: String) -> String { JSONValue.string(s).compactText }

    static func jsonLine(_ event: LiveEvent) -> String? {
        func obj(_ name: String, _ fields: [String: JSONValue] = [:]) -> String {
            var f = fields
            f["event"] = .string(name)
            return JSONValue.object(f).compactText
        }
        switch event {
        case .connecting(let attempt, let resuming): return obj("connecting", ["attempt": .number(Double(attempt)), "resuming": .bool(resuming)])
        case .setupComplete(let resumed): return obj("setupComplete", ["resumed": .bool(resumed)])
        case .audio(let d): return obj("audio", ["bytes": .number(Double(d.count))])
        case .inputTranscription(let t, let f): return obj("inputTranscription", ["text": .string(t), "finished": .bool(f)])
        case .outputTranscription(let t, let f): return obj("outputTranscription", ["text": .string(t), "finished": .bool(f)])
        case .modelText(let t): return obj("modelText", ["text": .string(t)])
        case .generationComplete: return obj("generationComplete")
        case .turnComplete(let r): return obj("turnComplete", r.map { ["reason": .string($0)] } ?? [:])
        case .interrupted: return obj("interrupted")
        case .toolCall(let calls):
            return obj("toolCall", ["functionCalls": .array(calls.map { ["id": .string($0.id), "name": .string($0.name), "args": $0.args] })])
        case .toolCallCancellation(let ids): return obj("toolCallCancellation", ["ids": .array(ids.map { .string($0) })])
        case .goAway(let left): return obj("goAway", ["timeLeft": .string(ProtobufDuration.format(left))])
        case .resumptionUpdate(let r): return obj("resumptionUpdate", ["resumable": .bool(r)])
        case .usage(let u):
            var f: [String: JSONValue] = [:]
            if let v = u.promptTokenCount { f["promptTokenCount"] = .number(Double(v)) }
            if let v = u.responseTokenCount { f["responseTokenCount"] = .number(Double(v)) }
            if let v = u.totalTokenCount { f["totalTokenCount"] = .number(Double(v)) }
            return obj("usage", f)
        case .connectionClosed(let r): return obj("connectionClosed", ["code": .number(Double(r.code)), "reason": .string(r.reason)])
        case .reconnecting(let a, let d, let r):
            return obj("reconnecting", ["attempt": .number(Double(a)), "delay": .number(d), "code": .number(Double(r.code)), "reason": .string(r.reason)])
        case .protocolError(let d): return obj("protocolError", ["detail": .string(d)])
        case .heldAudioDropped(let b): return obj("heldAudioDropped", ["bytes": .number(Double(b))])
        case .failed(let r): return obj("failed", ["code": .number(Double(r.code)), "reason": .string(r.reason), "hint": .string(r.hint)])
        case .closed: return nil
        }
    }
}
