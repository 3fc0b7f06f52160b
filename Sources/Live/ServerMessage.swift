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

public struct UsageMetadata: Codable, Sendable, Equatable {
    public struct ModalityTokenCount: Codable, Sendable, Equatable {
        public var modality: String?
        public var tokenCount: Int?
        public init(modality: String? = nil, tokenCount: Int? = nil) {
            self.modality = modality
            self.tokenCount = tokenCount
        }
    }
    public var promptTokenCount: Int?
    public var cachedContentTokenCount: Int?
    public var responseTokenCount: Int?
    public var toolUsePromptTokenCount: Int?
    public var thoughtsTokenCount: Int?
    public var totalTokenCount: Int?
    public var promptTokensDetails: [ModalityTokenCount]?
    public var responseTokensDetails: [ModalityTokenCount]?

    public init(promptTokenCount: Int? = nil, responseTokenCount: Int? = nil, totalTokenCount: Int? = nil) {
        self.promptTokenCount = promptTokenCount
        self.responseTokenCount = responseTokenCount
        self.totalTokenCount = totalTokenCount
    }

    /// Token counts are int32 on the wire; one outside 0…Int32.max (a broken or hostile frame, an edited
    /// transcript) reads as absent, so the sums parley keeps cannot overflow (the reducer's total and `parley export` trapped).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int? { try c.decodeIfPresent(Int.self, forKey: key).flatMap(Self.plausible) }
        promptTokenCount = try count(.promptTokenCount)
        cachedContentTokenCount = try count(.cachedContentTokenCount)
        responseTokenCount = try count(.responseTokenCount)
        toolUsePromptTokenCount = try count(.toolUsePromptTokenCount)
        thoughtsTokenCount = try count(.thoughtsTokenCount)
        totalTokenCount = try count(.totalTokenCount)
        promptTokensDetails = try c.decodeIfPresent([ModalityTokenCount].self, forKey: .promptTokensDetails)
        responseTokensDetails = try c.decodeIfPresent([ModalityTokenCount].self, forKey: .responseTokensDetails)
    }

    static func plausible(_ count: Int) -> Int? { (0...Int(Int32.max)).contains(count) ? count : nil }
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
