import Foundation
import Live
import TUI

/// One line of a saved session (JSON lines under `$XDG_DATA_HOME/parley/`): what happened (`entry`, whose case
/// carries only what that kind of line needs) and the facts any line may carry.
package struct TranscriptRecord: Sendable, Equatable {
    /// ISO 8601 time, filled in when the record is written.
    package var time: String?
    /// Seconds into the conversation's recording (`.ogg` or `.wav` beside the transcript) where this line's sound
    /// begins: a `user` line's speech, a `model` line's reply; absent while nothing is recorded.
    package var recordingOffset: Double?
    /// What the record's turn cost in US dollars, when a record carries it (`history` sums them).
    package var usd: Double?
    package var entry: Entry

    package init(_ entry: Entry, time: String? = nil, recordingOffset: Double? = nil) {
        self.entry = entry
        self.time = time
        self.recordingOffset = recordingOffset
    }

    package enum Entry: Sendable, Equatable {
        /// The first record of a conversation, and of each later run that goes on with it.
        case session(Session)
        /// A line on screen: either side of the conversation, or a system or error line.
        case said(Said)
        /// A tool call that ended (or was refused or cancelled).
        case tool(ToolRun)
        case usage(UsageMetadata)
        /// What the earlier parts of a resumed conversation used.
        case usageCarried(UsageCarry)
        case reconnect(resumed: Bool)
        case voice(name: String, resumed: Bool)
        /// A typed turn waiting while offline; `id` names it in its `sent` record.
        case queued(id: Int, text: String)
        /// A queued turn sent.
        case sent(id: Int)
        /// The last user turn, which had no answer, sent again on a new connection (its text when known).
        case resent(question: String?)
        /// The instruction, tools or voice changed mid-conversation.
        case context(ContextRecord)
    }

    package struct Session: Sendable, Equatable {
        package var model: String
        package var voice: String
        /// The system instruction (the persona) the run started with.
        package var system: String?
        /// A later run going on with the conversation in the same file (`--resume`).
        package var continued: Bool
        /// The transcript format; absent in files written before formats were.
        package var format: Int?
    }

    package enum Speaker: String, Sendable {
        case user, model, system, error
    }

    package struct Said: Sendable, Equatable {
        package var speaker: Speaker
        package var text: String
        package var interrupted: Bool
    }

    package struct ToolRun: Sendable, Equatable {
        package var id: String
        package var name: String
        package var arguments: String
        package var state: ToolCallState
        package var result: String?
        package var duration: Double?
    }

    /// Only what changed is set (a removed instruction is `system: ""`).
    package struct ContextRecord: Sendable, Equatable {
        package var system: String?
        /// The names of the tools from then on (functions, and `googleSearch`); empty when all were removed.
        package var tools: [String]?
        package var voice: String?
        package var route: ContextChange.Route
    }

    /// The format this parley writes and reads.
    package static let format = 1

    /// The kinds this parley reads, as `kind` names them on disk; a reader names any other and skips it.
    package enum Kind: String, CaseIterable, Sendable {
        case session, user, model, system, error, tool, usage, usageCarried, reconnect, voice, queued, sent, resent, context
    }

    package var kind: Kind {
        switch entry {
        case .session: .session
        case .said(let s): Kind(speaker: s.speaker)
        case .tool: .tool
        case .usage: .usage
        case .usageCarried: .usageCarried
        case .reconnect: .reconnect
        case .voice: .voice
        case .queued: .queued
        case .sent: .sent
        case .resent: .resent
        case .context: .context
        }
    }

    /// The line, when the record is one (either side, system or error).
    package var said: Said? {
        if case .said(let s) = entry { s } else { nil }
    }

    /// The line, when it is one side of the conversation (the user's or the model's).
    package var turn: Said? {
        said.flatMap { $0.speaker == .user || $0.speaker == .model ? $0 : nil }
    }

    package var session: Session? {
        if case .session(let s) = entry { s } else { nil }
    }

    /// Where the line is in the recording, `[03:12]` (`[1:03:12]` past an hour), when it was recorded.
    package var recordingMark: String? {
        guard let at = recordingOffset, at.isFinite, at >= 0 else { return nil }
        let s = Int(at.rounded(.down))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return s < 3600 ? "[\(two(s / 60)):\(two(s % 60))]" : "[\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))]"
    }

    package static func line(speaker: Speaker, text: String, interrupted: Bool) -> TranscriptRecord {
        TranscriptRecord(.said(Said(speaker: speaker, text: text, interrupted: interrupted)))
    }

    package static func tool(id: String, name: String, arguments: String, state: ToolCallState, result: String?, duration: Double?) -> TranscriptRecord {
        TranscriptRecord(.tool(ToolRun(id: id, name: name, arguments: arguments, state: state, result: result, duration: duration)))
    }

    package static func usage(_ u: UsageMetadata) -> TranscriptRecord { TranscriptRecord(.usage(u)) }

    package static func usageCarried(_ c: UsageCarry) -> TranscriptRecord { TranscriptRecord(.usageCarried(c)) }

    package static func reconnect(resumed: Bool) -> TranscriptRecord { TranscriptRecord(.reconnect(resumed: resumed)) }

    package static func queued(id: Int, text: String) -> TranscriptRecord { TranscriptRecord(.queued(id: id, text: text)) }

    package static func sent(id: Int) -> TranscriptRecord { TranscriptRecord(.sent(id: id)) }

    package static func resent(_ question: String?) -> TranscriptRecord { TranscriptRecord(.resent(question: question)) }

    /// A context change that took effect; only what it changed is set (a removed instruction is `system: ""`).
    package static func context(_ change: ContextChange, via route: ContextChange.Route) -> TranscriptRecord {
        let tools = change.tools.map { tools in
            tools.flatMap { t in (t.functionDeclarations ?? []).map(\.name) + (t.googleSearch != nil ? ["googleSearch"] : []) }
        }
        return TranscriptRecord(.context(ContextRecord(system: change.systemInstruction?.text, tools: tools, voice: change.voice, route: route)))
    }

    package static func voice(_ name: String, resumed: Bool) -> TranscriptRecord { TranscriptRecord(.voice(name: name, resumed: resumed)) }

    /// The first record of a conversation; `continued` when a later run goes on with it in the same file.
    package static func session(model: String, voice: String, system: String? = nil, continued: Bool = false) -> TranscriptRecord {
        TranscriptRecord(.session(Session(model: model, voice: voice, system: system, continued: continued, format: format)))
    }
}

extension TranscriptRecord.Kind {
    package init(speaker: TranscriptRecord.Speaker) {
        switch speaker {
        case .user: self = .user
        case .model: self = .model
        case .system: self = .system
        case .error: self = .error
        }
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
    package func contextMarkdown(_ c: ContextRecord) -> String {
        var what: [String] = []
        if let system = c.system, system.isEmpty { what.append("no system instruction") }
        if let tools = c.tools { what.append(tools.isEmpty ? "no tools" : "tools " + tools.map { "`\($0)`" }.joined(separator: ", ")) }
        if let voice = c.voice { what.append("voice \(voice)") }
        let how = switch c.route {
        case .contextUpdate: "in place"
        case .resume: "through a resume"
        case .newSession: "in a new session seeded with the conversation"
        }
        var out = "> context changed at \(time ?? "?") (\(how))" + (what.isEmpty ? "" : ": " + what.joined(separator: " · ")) + "\n"
        if let system = c.system, !system.isEmpty {
            out += ">\n> new system instruction:\n>\n"
            out += system.split(separator: "\n", omittingEmptySubsequences: false).map { "> > \($0)" }.joined(separator: "\n") + "\n"
        }
        return out + "\n"
    }
}
