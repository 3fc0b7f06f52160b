/// A change to a live conversation's context: the system instruction, the tools, the voice, or any of them at
/// once. What is nil stays as it is. The session applies it without losing the conversation: with a
/// `contextUpdate` message where the model takes one and only the instruction and tools change, otherwise by
/// moving to a new connection that resumes the session with the handle and the changed setup (as a voice
/// switch does). Either way the change is reported with `LiveEvent.contextChanged` once it took effect, or
/// `LiveEvent.contextRefused`.
public struct ContextChange: Sendable, Equatable {
    /// The new system instruction, whole; an instruction without text removes it.
    public var systemInstruction: Content?
    /// The new tools, whole (not a difference); an empty list removes them all. Build them as the setup's are
    /// (the model's function behaviours, the backend's rules): the session sends them as they are.
    public var tools: [Tool]?
    /// The new prebuilt voice. `contextUpdate` carries no voice, so a change of voice always takes a resume.
    public var voice: String?

    public init(systemInstruction: Content? = nil, tools: [Tool]? = nil, voice: String? = nil) {
        self.systemInstruction = systemInstruction
        self.tools = tools
        self.voice = voice
    }

    /// A change of instruction given as text (empty text removes the instruction).
    public init(instruction: String?, tools: [Tool]? = nil, voice: String? = nil) {
        self.init(systemInstruction: instruction.map { Content(text: $0) }, tools: tools, voice: voice)
    }

    /// How a change reached the model.
    public enum Route: Sendable, Equatable {
        /// A `contextUpdate` message on the live connection.
        case contextUpdate
        /// A new connection resumed the session (with its handle) under the changed setup.
        case resume
        /// A new session under the changed setup, seeded with the conversation so far (there was no handle).
        case newSession
    }

    /// Why a change was not applied.
    public enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The change holds nothing the current setup does not already have.
        case unchanged
        /// The session was closed (or had failed) before the change could be applied.
        case sessionEnded
        /// The instruction alone is over the model's input window (estimated): the service would close the
        /// connection with 1007, and the conversation with it.
        case instructionTooLarge(estimatedTokens: Int, limit: Int)

        public var description: String {
            switch self {
            case .unchanged: "nothing changed"
            case .sessionEnded: "the session has ended"
            case .instructionTooLarge(let tokens, let limit):
                "the instruction is about \(tokens) tokens and the model takes at most \(limit) — shorten it"
            }
        }
    }

    /// Tokens in `text` as parley estimates them before sending (UTF-8 bytes / 4, rounded up; `TurnSize`'s
    /// rule): low for CJK text, so what is refused is over the limit for certain.
    public static func estimatedTokens(_ text: String) -> Int { (text.utf8.count + 3) / 4 }

    /// `setup` with this change applied.
    public func applied(to setup: Setup) -> Setup {
        var s = setup
        if let systemInstruction {
            s.systemInstruction = systemInstruction.text.isEmpty ? nil : systemInstruction
        }
        if let tools { s.tools = tools.isEmpty ? nil : tools }
        if let voice {
            let language = s.generationConfig?.speechConfig?.languageCode
            var generation = s.generationConfig ?? GenerationConfig()
            generation.speechConfig = SpeechConfig(voiceName: voice, languageCode: language)
            s.generationConfig = generation
        }
        return s
    }
}

/// `contextUpdate`: the system instruction and/or the tools of the session from now on (at least one of the
/// two), without reconnecting; updates are processed in order with the rest of the input. Only some models take
/// it (`LiveModel.contextUpdate`); the others close the connection.
///
/// On the wire the tools are wrapped: `{"contextUpdate": {"tools": {"tools": [...]}}}`. That is the official
/// SDKs' type (`LiveClientContextUpdateTools`, google-genai 3.4): an unset and an empty repeated field look the
/// same in protobuf, so the wrapper says "replace the tools" even with an empty list. A bare list, as a summary
/// of the message might write it, is refused by the SDK's types and by proto JSON parsing alike.
public struct ContextUpdate: Codable, Sendable, Equatable {
    public var systemInstruction: Content?
    public var tools: [Tool]?

    public init(systemInstruction: Content? = nil, tools: [Tool]? = nil) {
        self.systemInstruction = systemInstruction
        self.tools = tools
    }

    /// The message that moves a connection set up with `old` to the context of `new`: only what differs.
    /// A removed instruction goes as an instruction with one empty text part, removed tools as an empty list
    /// (the message has no other way to say "none").
    public init(from old: Setup, to new: Setup) {
        if old.systemInstruction != new.systemInstruction {
            systemInstruction = new.systemInstruction ?? Content(text: "")
        }
        if old.tools != new.tools { tools = new.tools ?? [] }
    }

    /// Whether it carries anything (the service wants at least one of the two).
    public var isEmpty: Bool { systemInstruction == nil && tools == nil }

    private enum CodingKeys: String, CodingKey { case systemInstruction, tools }
    /// The wrapper; present with no list is an empty list, as in protobuf.
    private struct ToolList: Codable { var tools: [Tool]? }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        systemInstruction = try c.decodeIfPresent(Content.self, forKey: .systemInstruction)
        tools = try c.decodeIfPresent(ToolList.self, forKey: .tools).map { $0.tools ?? [] }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(systemInstruction, forKey: .systemInstruction)
        try c.encodeIfPresent(tools.map { ToolList(tools: $0) }, forKey: .tools)
    }
}
