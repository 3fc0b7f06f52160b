import Conversation
import Foundation
import Live
import TUI

/// Prints ask's events as transcripts or JSON lines.
final class AskPrinter {
    let json: Bool
    /// Print thoughts (as `thinking: …` lines); never mixed into the reply.
    let thoughts: Bool
    private var section: String?
    /// The section's fragments joined into clean text, and how much of it is printed.
    private var joined = TranscriptText()
    private var printed = ""

    init(json: Bool, thoughts: Bool = false) {
        self.json = json
        self.thoughts = thoughts
    }

    func print(_ event: LiveEvent) {
        if json {
            if let line = Self.jsonLine(event) { emit(line + "\n") }
            return
        }
        switch event {
        case .inputTranscription(let text, _): stream("you", text)
        case .outputTranscription(let text, _): stream("gemini", text)
        case .modelText(let text): stream("gemini", text)
        case .thought(let text) where thoughts: stream("thinking", text)
        case .modelActivity(let activity):
            endLine()
            emit(Self.describe(activity) + "\n")
        case .interrupted: emit(" [interrupted]")
        case .toolCall(let calls):
            endLine()
            for c in calls { emit("[tool] \(c.name)(\(c.args.compactText))\n") }
        case .reconnecting(let attempt, let delay, let after):
            endLine()
            emitError("connection lost (\(after.codeAndReason): \(after.message)); retrying in \(String(format: "%.1f", delay)) s (attempt \(attempt))")
        case .freshSession(let cause):
            endLine()
            emitError(SessionLines.freshSession(cause))
        case .turnResent:
            endLine()
            emitError("the question had no answer yet: asked again on the new connection")
        case .textQueued:
            emitError("offline: the question waits until the connection is back")
        case .replyStalled(let finding, let recovery):
            endLine()
            emitError(SessionLines.stall(finding, recovery))
        default: break
        }
    }

    /// Tool answers, from the runner's task: touches no printer state.
    static func toolAnswers(_ answers: [FunctionResponse], json: Bool) {
        if json {
            for a in answers {
                var fields: [String: JSONValue] = ["event": "toolResponse", "id": .string(a.id), "name": .string(a.name), "response": a.response]
                if let s = a.scheduling { fields["scheduling"] = .string(s.rawValue) }
                if a.willContinue == true { fields["willContinue"] = true }
                StandardStream.write(JSONValue.object(fields).compactText + "\n", to: 1)
            }
        }
    }

    func finish() { endLine() }

    private func stream(_ who: String, _ text: String) {
        if section != who {
            endLine()
            emit("\(who): ")
            section = who
            joined.reset()
            printed = ""
        }
        joined.append(text)
        let addition = joined.addition(after: printed)
        printed += addition
        emit(addition)
    }

    /// One line for code the model ran or a search it made.
    static func describe(_ activity: ModelActivity) -> String {
        switch activity {
        case .code(let language, let code): return "[code \(language.lowercased())] \(code)"
        case .codeResult(let outcome, let output): return "[code result \(outcome)] \(output)"
        case .grounding(let queries, let sources):
            return "[search] \(queries.joined(separator: "; "))" + (sources.isEmpty ? "" : " — sources: \(sources.joined(separator: "; "))")
        }
    }

    private func endLine() {
        if section != nil { emit("\n") }
        section = nil
    }

    private func emit(_ s: String) { StandardStream.write(json ? s : TerminalText.sanitized(s), to: 1) }
    private func emitError(_ s: String) { StandardStream.write("parley: \(TerminalText.sanitized(s))\n", to: 2) }


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
        case .thought(let t): return obj("thought", ["text": .string(t)])
        case .interimInputTranscription(let t): return obj("interimInputTranscription", ["text": .string(t)])
        case .interactionStatus(let t): return obj("interactionStatus", ["status": .string(t)])
        case .modelActivity(.code(let language, let code)): return obj("executableCode", ["language": .string(language), "code": .string(code)])
        case .modelActivity(.codeResult(let outcome, let output)): return obj("codeExecutionResult", ["outcome": .string(outcome), "output": .string(output)])
        case .modelActivity(.grounding(let queries, let sources)):
            return obj("grounding", ["queries": .array(queries.map { .string($0) }), "sources": .array(sources.map { .string($0) })])
        case .generationComplete: return obj("generationComplete")
        case .turnComplete(let r): return obj("turnComplete", r.map { ["reason": .string($0)] } ?? [:])
        case .interrupted: return obj("interrupted")
        case .toolCall(let calls):
            return obj("toolCall", ["functionCalls": .array(calls.map { ["id": .string($0.id), "name": .string($0.name), "args": $0.args] })])
        case .toolCallCancellation(let ids): return obj("toolCallCancellation", ["ids": .array(ids.map { .string($0) })])
        case .goAway(let left): return obj("goAway", ["timeLeft": .string(ProtobufDuration.format(left))])
        case .resumptionUpdate(let r): return obj("resumptionUpdate", ["resumable": .bool(r)])
        case .usage: return nil  // AskUsage prints it, priced and with the running totals
        case .connectionClosed(let r): return obj("connectionClosed", ["code": .number(Double(r.code)), "reason": .string(r.reason)])
        case .reconnecting(let a, let d, let r):
            return obj("reconnecting", ["attempt": .number(Double(a)), "delay": .number(d), "code": .number(Double(r.code)), "reason": .string(r.reason), "message": .string(r.message)])
        case .protocolError(let d): return obj("protocolError", ["detail": .string(d)])
        case .heldAudioDropped(let b): return obj("heldAudioDropped", ["bytes": .number(Double(b))])
        case .failed(let r):
            return obj("failed", ["code": .number(Double(r.code)), "reason": .string(r.reason), "message": .string(r.message), "hint": .string(r.hint)])
        case .textQueued(let id, _, let waiting): return obj("textQueued", ["id": .number(Double(id)), "waiting": .number(Double(waiting))])
        case .queuedTextSent(let ids): return obj("queuedTextSent", ["ids": .array(ids.map { .number(Double($0)) })])
        case .textNotQueued(let id, let limit): return obj("textNotQueued", ["id": .number(Double(id)), "limit": .number(Double(limit))])
        case .turnResent(let text): return obj("turnResent", ["typed": .bool(text != nil)])
        case .replyStalled(let finding, let recovery):
            return obj("replyStalled", ["finding": .string(finding.description), "recovery": .string(recovery == .nudge ? "nudge" : "resume")])
        case .freshSession(let cause):
            switch cause {
            case .handleRefused(let r): return obj("freshSession", ["cause": .string("handleRefused"), "code": .number(Double(r.code)), "reason": .string(r.reason)])
            case .handleExpired(let age): return obj("freshSession", ["cause": .string("handleExpired"), "age": .number(age)])
            }
        case .contextChanged(_, let route): return obj("contextChanged", ["via": .string("\(route)")])
        case .contextRefused(_, let refusal): return obj("contextRefused", ["reason": .string("\(refusal)")])
        case .closed: return nil
        }
    }
}
