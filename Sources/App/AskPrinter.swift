import Foundation
import Live

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
