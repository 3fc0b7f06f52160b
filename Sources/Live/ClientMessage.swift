import Foundation

/// A message parley sends. Each encodes to a JSON object with exactly one top-level key.
public enum ClientMessage: Sendable, Equatable {
    case setup(Setup)
    case realtimeInput(RealtimeInput)
    case clientContent(ClientContent)
    case toolResponse(ToolResponse)
    /// A new system instruction and/or tools mid-session (models that take it: `LiveModel.contextUpdate`).
    case contextUpdate(ContextUpdate)

    /// The wire name of the message's single top-level key.
    public var kind: String {
        switch self {
        case .setup: "setup"
        case .realtimeInput: "realtimeInput"
        case .clientContent: "clientContent"
        case .toolResponse: "toolResponse"
        case .contextUpdate: "contextUpdate"
        }
    }
}

/// Realtime input: exactly one field per message (`mediaChunks` is deprecated and never sent).
public enum RealtimeInput: Sendable, Equatable {
    case audio(Blob)
    case video(Blob)
    case text(String)
    case activityStart
    case activityEnd
    case audioStreamEnd

    /// 16 kHz mono s16le microphone audio.
    public static func micAudio(_ pcm: Data) -> RealtimeInput {
        .audio(Blob(mimeType: LiveAudioFormat.inputMimeType, data: pcm))
    }
}

/// Turns of content added to the conversation; `turnComplete: true` asks the model to answer.
public struct ClientContent: Codable, Sendable, Equatable {
    public var turns: [Content]?
    public var turnComplete: Bool?
    public init(turns: [Content]? = nil, turnComplete: Bool? = nil) {
        self.turns = turns
        self.turnComplete = turnComplete
    }
    /// One user text turn that asks for a reply.
    public static func userText(_ text: String) -> ClientContent {
        ClientContent(turns: [Content(role: "user", text: text)], turnComplete: true)
    }
}

public struct ToolResponse: Codable, Sendable, Equatable {
    public var functionResponses: [FunctionResponse]
    public init(functionResponses: [FunctionResponse]) { self.functionResponses = functionResponses }
}

public struct FunctionResponse: Codable, Sendable, Equatable {
    /// The `id` of the function call this answers (required: the model waits until every call is answered).
    public var id: String
    public var name: String
    public var response: JSONValue
    /// For a NON_BLOCKING call: `INTERRUPT`, `WHEN_IDLE` or `SILENT`.
    public var scheduling: ToolScheduling?
    /// A partial result: more responses for this id follow.
    public var willContinue: Bool?
    public init(id: String, name: String, response: JSONValue, scheduling: ToolScheduling? = nil, willContinue: Bool? = nil) {
        self.id = id
        self.name = name
        self.response = response
        self.scheduling = scheduling
        self.willContinue = willContinue
    }
}

/// The audio formats of the Live API.
public enum LiveAudioFormat {
    public static let inputSampleRate = 16_000
    public static let outputSampleRate = 24_000
    public static let inputMimeType = "audio/pcm;rate=16000"
    public static let outputMimeType = "audio/pcm;rate=24000"
}

// MARK: - Coding

extension ClientMessage: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let keys = c.allKeys.map(\.stringValue)
        guard keys.count == 1, let key = keys.first else {
            throw LiveProtocolError.invalidClientMessage("a client message must have exactly one top-level key, got \(keys.sorted())")
        }
        switch key {
        case "setup": self = .setup(try c.decode(Setup.self, forKey: AnyKey(key)))
        case "realtimeInput": self = .realtimeInput(try c.decode(RealtimeInput.self, forKey: AnyKey(key)))
        case "clientContent": self = .clientContent(try c.decode(ClientContent.self, forKey: AnyKey(key)))
        case "toolResponse": self = .toolResponse(try c.decode(ToolResponse.self, forKey: AnyKey(key)))
        case "contextUpdate": self = .contextUpdate(try c.decode(ContextUpdate.self, forKey: AnyKey(key)))
        default: throw LiveProtocolError.invalidClientMessage("unknown client message \(key)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        let key = AnyKey(kind)
        switch self {
        case .setup(let v): try c.encode(v, forKey: key)
        case .realtimeInput(let v): try c.encode(v, forKey: key)
        case .clientContent(let v): try c.encode(v, forKey: key)
        case .toolResponse(let v): try c.encode(v, forKey: key)
        case .contextUpdate(let v): try c.encode(v, forKey: key)
        }
    }
}

extension RealtimeInput: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let keys = c.allKeys.map(\.stringValue)
        if keys.contains("mediaChunks") { throw LiveProtocolError.invalidClientMessage("mediaChunks is deprecated") }
        guard keys.count == 1, let key = keys.first else {
            throw LiveProtocolError.invalidClientMessage("realtimeInput must carry exactly one field, got \(keys.sorted())")
        }
        let k = AnyKey(key)
        switch key {
        case "audio": self = .audio(try c.decode(Blob.self, forKey: k))
        case "video": self = .video(try c.decode(Blob.self, forKey: k))
        case "text": self = .text(try c.decode(String.self, forKey: k))
        case "activityStart": self = .activityStart
        case "activityEnd": self = .activityEnd
        case "audioStreamEnd": self = .audioStreamEnd
        default: throw LiveProtocolError.invalidClientMessage("unknown realtimeInput field \(key)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        switch self {
        case .audio(let b): try c.encode(b, forKey: AnyKey("audio"))
        case .video(let b): try c.encode(b, forKey: AnyKey("video"))
        case .text(let t): try c.encode(t, forKey: AnyKey("text"))
        case .activityStart: try c.encode(EmptyObject(), forKey: AnyKey("activityStart"))
        case .activityEnd: try c.encode(EmptyObject(), forKey: AnyKey("activityEnd"))
        case .audioStreamEnd: try c.encode(true, forKey: AnyKey("audioStreamEnd"))
        }
    }
}
