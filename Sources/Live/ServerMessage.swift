import Foundation

/// A message from the server. One message may carry several of these fields at once; handle every one present.
public struct ServerMessage: Codable, Sendable, Equatable {
    public var setupComplete: EmptyObject?
    public var serverContent: ServerContent?
    public var toolCall: ToolCall?
    public var toolCallCancellation: ToolCallCancellation?
    public var goAway: GoAway?
    public var sessionResumptionUpdate: SessionResumptionUpdate?
    public var usageMetadata: UsageMetadata?

    public init(
        setupComplete: EmptyObject? = nil, serverContent: ServerContent? = nil, toolCall: ToolCall? = nil,
        toolCallCancellation: ToolCallCancellation? = nil, goAway: GoAway? = nil,
        sessionResumptionUpdate: SessionResumptionUpdate? = nil, usageMetadata: UsageMetadata? = nil
    ) {
        self.setupComplete = setupComplete
        self.serverContent = serverContent
        self.toolCall = toolCall
        self.toolCallCancellation = toolCallCancellation
        self.goAway = goAway
        self.sessionResumptionUpdate = sessionResumptionUpdate
        self.usageMetadata = usageMetadata
    }
}

public struct ServerContent: Codable, Sendable, Equatable {
    public var modelTurn: Content?
    public var turnComplete: Bool?
    public var interrupted: Bool?
    public var generationComplete: Bool?
    public var inputTranscription: Transcription?
    public var outputTranscription: Transcription?
    public var turnCompleteReason: String?
    public var waitingForInput: Bool?
    public var groundingMetadata: JSONValue?
    /// A fast partial transcript of the user, replaced by `inputTranscription`.
    public var interimInputTranscription: Transcription?
    /// What the model does in the background (extended thinking, tools); a string or an object on the wire.
    public var interactionStatus: JSONValue?

    public init(
        modelTurn: Content? = nil, turnComplete: Bool? = nil, interrupted: Bool? = nil,
        generationComplete: Bool? = nil, inputTranscription: Transcription? = nil,
        outputTranscription: Transcription? = nil, turnCompleteReason: String? = nil, waitingForInput: Bool? = nil,
        groundingMetadata: JSONValue? = nil, interimInputTranscription: Transcription? = nil,
        interactionStatus: JSONValue? = nil
    ) {
        self.interimInputTranscription = interimInputTranscription
        self.interactionStatus = interactionStatus
        self.modelTurn = modelTurn
        self.turnComplete = turnComplete
        self.interrupted = interrupted
        self.generationComplete = generationComplete
        self.inputTranscription = inputTranscription
        self.outputTranscription = outputTranscription
        self.turnCompleteReason = turnCompleteReason
        self.waitingForInput = waitingForInput
        self.groundingMetadata = groundingMetadata
    }
}

public struct Transcription: Codable, Sendable, Equatable {
    public var text: String?
    public var finished: Bool?
    public init(text: String? = nil, finished: Bool? = nil) {
        self.text = text
        self.finished = finished
    }
}

public struct ToolCall: Codable, Sendable, Equatable {
    public var functionCalls: [FunctionCall]
    public init(functionCalls: [FunctionCall]) { self.functionCalls = functionCalls }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        functionCalls = try c.decodeIfPresent([FunctionCall].self, forKey: .functionCalls) ?? []
    }
}

public struct FunctionCall: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var args: JSONValue
    public init(id: String, name: String, args: JSONValue = .object([:])) {
        self.id = id
        self.name = name
        self.args = args
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id) ?? ""
        name = try c.decode(String.self, forKey: .name)
        args = try c.decodeIfPresent(JSONValue.self, forKey: .args) ?? .object([:])
    }
}

public struct ToolCallCancellation: Codable, Sendable, Equatable {
    public var ids: [String]
    public init(ids: [String]) { self.ids = ids }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ids = try c.decodeIfPresent([String].self, forKey: .ids) ?? []
    }
}

public struct GoAway: Codable, Sendable, Equatable {
    /// A protobuf Duration string such as `"50s"` or `"0.5s"`.
    public var timeLeft: String?
    public init(timeLeft: String?) { self.timeLeft = timeLeft }

    /// `timeLeft` parsed; nil when absent or malformed.
    public var timeLeftDuration: Duration? { timeLeft.flatMap(ProtobufDuration.parse) }
}

public struct SessionResumptionUpdate: Codable, Sendable, Equatable {
    public var newHandle: Secret?
    public var resumable: Bool?
    /// An int64 that the wire encodes as a JSON string.
    public var lastConsumedClientMessageIndex: Int64?

    public init(newHandle: Secret? = nil, resumable: Bool? = nil, lastConsumedClientMessageIndex: Int64? = nil) {
        self.newHandle = newHandle
        self.resumable = resumable
        self.lastConsumedClientMessageIndex = lastConsumedClientMessageIndex
    }

    enum CodingKeys: String, CodingKey { case newHandle, resumable, lastConsumedClientMessageIndex }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        newHandle = try c.decodeIfPresent(Secret.self, forKey: .newHandle)
        resumable = try c.decodeIfPresent(Bool.self, forKey: .resumable)
        if let s = try? c.decodeIfPresent(String.self, forKey: .lastConsumedClientMessageIndex) {
            lastConsumedClientMessageIndex = Int64(s)
        } else {
            lastConsumedClientMessageIndex = try? c.decodeIfPresent(Int64.self, forKey: .lastConsumedClientMessageIndex)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(newHandle, forKey: .newHandle)
        try c.encodeIfPresent(resumable, forKey: .resumable)
        try c.encodeIfPresent(lastConsumedClientMessageIndex.map(String.init), forKey: .lastConsumedClientMessageIndex)
    }

    /// The handle worth keeping: present, non-empty, and marked resumable.
    public var usableHandle: Secret? {
        guard resumable == true, let h = newHandle, !h.isEmpty else { return nil }
        return h
    }
}

/// `usageMetadata`, once per turn with `turnComplete`. Decodes AI Studio's names and Vertex's
/// (`candidatesTokenCount`, `candidatesTokensDetails`, `trafficType`), each in camelCase or snake_case; a field
/// of the wrong type reads as absent (usage is never worth dropping the message over). Encodes AI Studio's names.
public struct UsageMetadata: Codable, Sendable, Equatable {
    public struct ModalityTokenCount: Codable, Sendable, Equatable {
        public var modality: String?
        public var tokenCount: Int?
        public init(modality: String? = nil, tokenCount: Int? = nil) {
            self.modality = modality
            self.tokenCount = tokenCount
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: UsageKey.self)
            modality = c.lenient(String.self, "modality")
            tokenCount = c.lenientInt("tokenCount")
        }
    }
    /// The whole context so far (it grows every turn and is billed every turn, less what is cached).
    public var promptTokenCount: Int?
    public var cachedContentTokenCount: Int?
    /// The reply; Vertex calls it `candidatesTokenCount`.
    public var responseTokenCount: Int?
    public var toolUsePromptTokenCount: Int?
    public var thoughtsTokenCount: Int?
    public var totalTokenCount: Int?
    public var promptTokensDetails: [ModalityTokenCount]?
    public var cacheTokensDetails: [ModalityTokenCount]?
    /// Vertex calls it `candidatesTokensDetails`.
    public var responseTokensDetails: [ModalityTokenCount]?
    public var toolUsePromptTokensDetails: [ModalityTokenCount]?
    /// Vertex only: `ON_DEMAND`, `PROVISIONED_THROUGHPUT`, …
    public var trafficType: String?

    public init(promptTokenCount: Int? = nil, responseTokenCount: Int? = nil, totalTokenCount: Int? = nil) {
        self.promptTokenCount = promptTokenCount
        self.responseTokenCount = responseTokenCount
        self.totalTokenCount = totalTokenCount
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: UsageKey.self)
        promptTokenCount = c.lenientInt("promptTokenCount")
        cachedContentTokenCount = c.lenientInt("cachedContentTokenCount")
        responseTokenCount = c.lenientInt("responseTokenCount") ?? c.lenientInt("candidatesTokenCount")
        toolUsePromptTokenCount = c.lenientInt("toolUsePromptTokenCount")
        thoughtsTokenCount = c.lenientInt("thoughtsTokenCount")
        totalTokenCount = c.lenientInt("totalTokenCount")
        promptTokensDetails = c.lenient([ModalityTokenCount].self, "promptTokensDetails")
        cacheTokensDetails = c.lenient([ModalityTokenCount].self, "cacheTokensDetails")
        responseTokensDetails = c.lenient([ModalityTokenCount].self, "responseTokensDetails")
            ?? c.lenient([ModalityTokenCount].self, "candidatesTokensDetails")
        toolUsePromptTokensDetails = c.lenient([ModalityTokenCount].self, "toolUsePromptTokensDetails")
        trafficType = c.lenient(String.self, "trafficType")
    }

    /// Which backend's field names to write.
    public enum Naming: Sendable, Equatable {
        /// `responseTokenCount`, `responseTokensDetails` (the Gemini API in AI Studio).
        case aiStudio
        /// `candidatesTokenCount`, `candidatesTokensDetails` (Vertex AI).
        case vertex
    }

    /// Set an encoder's `userInfo[UsageMetadata.namingKey]` to a ``Naming`` to write Vertex's names.
    public static let namingKey = CodingUserInfoKey(rawValue: "parley.usageNaming")!

    public func encode(to encoder: any Encoder) throws {
        let vertex = (encoder.userInfo[Self.namingKey] as? Naming) == .vertex
        var c = encoder.container(keyedBy: UsageKey.self)
        func put<T: Encodable>(_ v: T?, _ name: String) throws {
            if let v { try c.encode(v, forKey: UsageKey(stringValue: name)) }
        }
        try put(promptTokenCount, "promptTokenCount")
        try put(cachedContentTokenCount, "cachedContentTokenCount")
        try put(responseTokenCount, vertex ? "candidatesTokenCount" : "responseTokenCount")
        try put(toolUsePromptTokenCount, "toolUsePromptTokenCount")
        try put(thoughtsTokenCount, "thoughtsTokenCount")
        try put(totalTokenCount, "totalTokenCount")
        try put(promptTokensDetails, "promptTokensDetails")
        try put(cacheTokensDetails, "cacheTokensDetails")
        try put(responseTokensDetails, vertex ? "candidatesTokensDetails" : "responseTokensDetails")
        try put(toolUsePromptTokensDetails, "toolUsePromptTokensDetails")
        try put(trafficType, "trafficType")
    }
}

/// Any key, so one name can be looked up in camelCase and in snake_case.
struct UsageKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// `promptTokenCount` → `prompt_token_count` (the names are parley's own ASCII literals). Byte by byte:
    /// `Character.isUppercase` looked each letter up in the Unicode tables, which was a third of the time
    /// `history show` took to read a 10,000-turn transcript.
    static func snake(_ camel: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(camel.utf8.count + 4)
        for b in camel.utf8 {
            if b >= 0x41, b <= 0x5A { out += [0x5F, b + 0x20] } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension KeyedDecodingContainer where Key == UsageKey {
    /// The value under `name` or its snake_case spelling; nil when absent, null or of another type.
    func lenient<T: Decodable>(_ type: T.Type, _ name: String) -> T? {
        if let v = try? decodeIfPresent(T.self, forKey: UsageKey(stringValue: name)) { return v }
        return try? decodeIfPresent(T.self, forKey: UsageKey(stringValue: UsageKey.snake(name)))
    }

    /// A count, also when sent as a string (int64 in proto JSON) or as a whole float. Counts are int32 on the
    /// wire: one outside 0…Int32.max (a broken or hostile frame, an edited transcript) reads as absent, so no
    /// sum parley keeps can overflow and nothing is negative.
    func lenientInt(_ name: String) -> Int? {
        func plausible(_ i: Int) -> Int? { (0...Int(Int32.max)).contains(i) ? i : nil }
        if let i = lenient(Int.self, name) { return plausible(i) }
        if let s = lenient(String.self, name), let i = Int(s) { return plausible(i) }
        if let d = lenient(Double.self, name), d.isFinite, d >= 0, d <= Double(Int32.max), d == d.rounded() { return Int(d) }
        return nil
    }
}

/// Parses protobuf Duration strings (`"50s"`, `"0.5s"`, `"1.000340012s"`).
public enum ProtobufDuration {
    public static func parse(_ text: String) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces)
        // Protobuf's own limit (10,000 years); beyond it the milliseconds would not fit an Int64.
        guard t.hasSuffix("s"), let seconds = Double(t.dropLast()), seconds.isFinite, seconds >= 0, seconds <= 315_576_000_000
        else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Formats a duration the way the wire does (`"50s"`, `"0.5s"`).
    public static func format(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        var s = String(format: "%.3f", Double(ms) / 1000)
        while s.hasSuffix("0") { s.removeLast() }
        return s + "s"
    }
}
