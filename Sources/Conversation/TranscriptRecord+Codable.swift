import Foundation
import Live
import TUI

/// A transcript line on disk is one flat JSON object: `kind` says what it is, beside the fields that kind uses
/// (`{"kind":"user","text":"…","time":"…"}`). The names and the shape are the format every parley has written;
/// they must not change (old transcripts are read, history and `--resume` depend on them).
extension TranscriptRecord: Codable {
    enum Key: String, CodingKey {
        case time, kind, text, interrupted, toolID, toolName, arguments, state, result, duration, usage, voice, model
        case resumed, turnID, carried, format, system, tools, route, usd, recordingOffset
    }

    /// Why a line that is JSON of the right shape is still not read.
    package enum NotRead: Error, Equatable {
        /// A kind this parley does not know (written by a newer one, or by hand).
        case unknownKind(String)
        /// A record in a format newer than this parley reads; whatever follows it is in that format too.
        case newerFormat(Int)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let name = try c.decode(String.self, forKey: .kind)
        let format = try c.decodeIfPresent(Int.self, forKey: .format)
        if let format, format > Self.format { throw NotRead.newerFormat(format) }
        guard let kind = Kind(rawValue: name) else { throw NotRead.unknownKind(name) }
        func string(_ key: Key) throws -> String { try c.decode(String.self, forKey: key) }
        func maybe<T: Decodable>(_ key: Key, _: T.Type = T.self) throws -> T? { try c.decodeIfPresent(T.self, forKey: key) }
        // A line without text reads as an empty one, as it always has (history and search skip it).
        func said(_ speaker: Speaker) throws -> Entry {
            .said(Said(speaker: speaker, text: try maybe(.text) ?? "", interrupted: try maybe(.interrupted) ?? false))
        }

        let entry: Entry
        switch kind {
        case .session:
            entry = .session(Session(
                model: try string(.model), voice: try string(.voice), system: try maybe(.system),
                continued: try maybe(.resumed) ?? false, format: format))
        case .user: entry = try said(.user)
        case .model: entry = try said(.model)
        case .system: entry = try said(.system)
        case .error: entry = try said(.error)
        case .tool:
            let stateName = try string(.state)
            guard let state = ToolCallState(rawValue: stateName) else {
                throw DecodingError.dataCorruptedError(forKey: .state, in: c, debugDescription: "unknown tool state \(stateName)")
            }
            entry = .tool(ToolRun(
                id: try string(.toolID), name: try string(.toolName), arguments: try string(.arguments), state: state,
                result: try maybe(.result), duration: try maybe(.duration)))
        case .usage:
            entry = .usage(try c.decode(UsageMetadata.self, forKey: .usage))
        case .usageCarried:
            entry = .usageCarried(try c.decode(UsageCarry.self, forKey: .carried))
        case .reconnect:
            entry = .reconnect(resumed: try c.decode(Bool.self, forKey: .resumed))
        case .voice:
            entry = .voice(name: try string(.voice), resumed: try maybe(.resumed) ?? false)
        case .queued:
            entry = .queued(id: try c.decode(Int.self, forKey: .turnID), text: try string(.text))
        case .sent:
            entry = .sent(id: try c.decode(Int.self, forKey: .turnID))
        case .resent:
            entry = .resent(question: try maybe(.text))
        case .context:
            let routeName = try string(.route)
            guard let route = ContextChange.Route(name: routeName) else {
                throw DecodingError.dataCorruptedError(forKey: .route, in: c, debugDescription: "unknown route \(routeName)")
            }
            entry = .context(ContextRecord(system: try maybe(.system), tools: try maybe(.tools), voice: try maybe(.voice), route: route))
        }
        self.init(entry, time: try maybe(.time), recordingOffset: try maybe(.recordingOffset))
        usd = try maybe(.usd)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encodeIfPresent(time, forKey: .time)
        try c.encodeIfPresent(recordingOffset, forKey: .recordingOffset)
        try c.encodeIfPresent(usd, forKey: .usd)
        switch entry {
        case .session(let s):
            try c.encodeIfPresent(s.format, forKey: .format)
            try c.encode(s.model, forKey: .model)
            try c.encode(s.voice, forKey: .voice)
            try c.encodeIfPresent(s.system, forKey: .system)
            if s.continued { try c.encode(true, forKey: .resumed) }
        case .said(let s):
            try c.encode(s.text, forKey: .text)
            if s.interrupted { try c.encode(true, forKey: .interrupted) }
        case .tool(let t):
            try c.encode(t.id, forKey: .toolID)
            try c.encode(t.name, forKey: .toolName)
            try c.encode(t.arguments, forKey: .arguments)
            try c.encode(t.state.rawValue, forKey: .state)
            try c.encodeIfPresent(t.result, forKey: .result)
            try c.encodeIfPresent(t.duration, forKey: .duration)
        case .usage(let u):
            try c.encode(u, forKey: .usage)
        case .usageCarried(let carried):
            try c.encode(carried, forKey: .carried)
        case .reconnect(let resumed):
            try c.encode(resumed, forKey: .resumed)
        case .voice(let name, let resumed):
            try c.encode(name, forKey: .voice)
            try c.encode(resumed, forKey: .resumed)
        case .queued(let id, let text):
            try c.encode(id, forKey: .turnID)
            try c.encode(text, forKey: .text)
        case .sent(let id):
            try c.encode(id, forKey: .turnID)
        case .resent(let question):
            try c.encodeIfPresent(question, forKey: .text)
        case .context(let x):
            try c.encodeIfPresent(x.system, forKey: .system)
            try c.encodeIfPresent(x.tools, forKey: .tools)
            try c.encodeIfPresent(x.voice, forKey: .voice)
            try c.encode(x.route.name, forKey: .route)
        }
    }
}

extension ContextChange.Route {
    /// How a transcript names the route (`route` in a `context` record).
    var name: String {
        switch self {
        case .contextUpdate: "contextUpdate"
        case .resume: "resume"
        case .newSession: "newSession"
        }
    }

    init?(name: String) {
        switch name {
        case "contextUpdate": self = .contextUpdate
        case "resume": self = .resume
        case "newSession": self = .newSession
        default: return nil
        }
    }
}
