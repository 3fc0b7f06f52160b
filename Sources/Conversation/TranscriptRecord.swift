import Foundation
import Live

/// One line of a saved session (JSON lines under `$XDG_DATA_HOME/parley/`).
package struct TranscriptRecord: Codable, Sendable, Equatable {
    /// ISO 8601 time, filled in when the record is written.
    package var time: String?
    /// `session`, `user`, `model`, `system`, `error`, `tool`, `usage`, `usageCarried`, `reconnect`, `voice`, `queued`
    /// (a typed turn waiting while offline), `sent` (a queued turn sent; `turnID` names it), `resent` (the last user
    /// turn, which had no answer, sent again on a new connection; `text` is that turn's when known), `context` (the
    /// instruction, tools or voice changed mid-conversation: `system`, `tools`, `voice` hold what changed, `route`
    /// how it reached the model).
    package var kind: String
    package var text: String?
    package var interrupted: Bool?
    var toolID: String?
    package var toolName: String?
    package var arguments: String?
    package var state: String?
    package var result: String?
    package var duration: Double?
    package var usage: UsageMetadata?
    package var voice: String?
    package var model: String?
    package var resumed: Bool?
    /// The id of a queued typed turn, in its `queued` and `sent` records.
    var turnID: Int?
    /// `usageCarried`: what the earlier parts of a resumed conversation used.
    package var carried: UsageCarry?
    /// The transcript format, in `session` records; a reader stops at a format newer than its own.
    package var format: Int?
    /// The system instruction (the persona) a `session` record started with.
    package var system: String?
    /// `context`: the names of the tools from then on (functions, and `googleSearch`); empty when all were removed.
    package var tools: [String]?
    /// `context`: how the change reached the model (`contextUpdate`, `resume`, `newSession`).
    package var route: String?
    /// What the record's turn cost in US dollars, when a record carries it (`history` sums them).
    package var usd: Double?
    /// Seconds into the conversation's recording (`.ogg` or `.wav` beside the transcript) where this line's sound
    /// begins: a `user` line's speech, a `model` line's reply; absent while nothing is recorded.
    package var recordingOffset: Double?

    /// Where the line is in the recording, `[03:12]` (`[1:03:12]` past an hour), when it was recorded.
    package var recordingMark: String? {
        guard let at = recordingOffset, at.isFinite, at >= 0 else { return nil }
        let s = Int(at.rounded(.down))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return s < 3600 ? "[\(two(s / 60)):\(two(s % 60))]" : "[\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))]"
    }

    /// The format this parley writes and reads.
    package static let format = 1

    /// The kinds this parley reads; a reader names any other and skips it.
    package enum Kind: String, CaseIterable {
        case session, user, model, system, error, tool, usage, usageCarried, reconnect, voice, queued, sent, resent, context
    }

    package init(kind: String) { self.kind = kind }

    package static func line(speaker: String, text: String, interrupted: Bool) -> TranscriptRecord {
        var r = TranscriptRecord(kind: speaker)
        r.text = text
        if interrupted { r.interrupted = true }
        return r
    }

    package static func tool(id: String, name: String, arguments: String, state: String, result: String?, duration: Double?) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "tool")
        r.toolID = id
        r.toolName = name
        r.arguments = arguments
        r.state = state
        r.result = result
        r.duration = duration
        return r
    }

    package static func usage(_ u: UsageMetadata) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "usage")
        r.usage = u
        return r
    }

    package static func usageCarried(_ c: UsageCarry) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "usageCarried")
        r.carried = c
        return r
    }

    package static func reconnect(resumed: Bool) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "reconnect")
        r.resumed = resumed
        return r
    }

    package static func queued(id: Int, text: String) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "queued")
        r.turnID = id
        r.text = text
        return r
    }

    package static func sent(id: Int) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "sent")
        r.turnID = id
        return r
    }

    package static func resent(_ question: String?) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "resent")
        r.text = question
        return r
    }

    /// A context change that took effect; only what it changed is set (a removed instruction is `system: ""`).
    package static func context(_ change: ContextChange, via route: ContextChange.Route) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "context")
        r.system = change.systemInstruction?.text
        r.tools = change.tools.map { tools in
            tools.flatMap { t in (t.functionDeclarations ?? []).map(\.name) + (t.googleSearch != nil ? ["googleSearch"] : []) }
        }
        r.voice = change.voice
        r.route = "\(route)"
        return r
    }

    package static func voice(_ name: String, resumed: Bool) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "voice")
        r.voice = name
        r.resumed = resumed
        return r
    }

    /// The first record of a conversation; `continued` when a later run goes on with it in the same file.
    package static func session(model: String, voice: String, system: String? = nil, continued: Bool = false) -> TranscriptRecord {
        var r = TranscriptRecord(kind: "session")
        r.format = format
        r.model = model
        r.voice = voice
        r.system = system
        if continued { r.resumed = true }
        return r
    }
}

extension ContextChange {
    /// What a change touches, in words: `the instruction, the tools and the voice (Kore)`.
    package var summary: String {
        var parts: [String] = []
        if let i = systemInstruction { parts.append(i.text.isEmpty ? "the instruction (removed)" : "the instruction") }
        if let t = tools {
            let n = t.reduce(0) { $0 + ($1.functionDeclarations?.count ?? 0) + ($1.googleSearch != nil ? 1 : 0) }
            parts.append("the tools (\(n == 0 ? "none" : n == 1 ? "1 tool" : "\(n) tools"))")
        }
        if let v = voice { parts.append("the voice (\(v))") }
        switch parts.count {
        case 0: return "nothing"
        case 1: return parts[0]
        default: return parts.dropLast().joined(separator: ", ") + " and " + (parts.last ?? "")
        }
    }
}

extension TranscriptRecord {
    /// A `context` record in the Markdown export: when and how the context changed, what the tools and voice
    /// became, and the new instruction quoted whole.
    package var contextMarkdown: String {
        var what: [String] = []
        if let system, system.isEmpty { what.append("no system instruction") }
        if let tools { what.append(tools.isEmpty ? "no tools" : "tools " + tools.map { "`\($0)`" }.joined(separator: ", ")) }
        if let voice { what.append("voice \(voice)") }
        let how = switch route {
        case "contextUpdate": "in place"
        case "resume": "through a resume"
        case "newSession": "in a new session seeded with the conversation"
        default: route ?? "?"
        }
        var out = "> context changed at \(time ?? "?") (\(how))" + (what.isEmpty ? "" : ": " + what.joined(separator: " · ")) + "\n"
        if let system, !system.isEmpty {
            out += ">\n> new system instruction:\n>\n"
            out += system.split(separator: "\n", omittingEmptySubsequences: false).map { "> > \($0)" }.joined(separator: "\n") + "\n"
        }
        return out + "\n"
    }
}
