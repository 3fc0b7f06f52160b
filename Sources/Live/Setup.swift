import Foundation

/// The first message of every connection: the model and how the session should behave.
public struct Setup: Codable, Sendable, Equatable {
    /// `models/<id>`.
    public var model: String
    public var generationConfig: GenerationConfig?
    public var systemInstruction: Content?
    public var tools: [Tool]?
    public var realtimeInputConfig: RealtimeInputConfig?
    public var inputAudioTranscription: EmptyObject?
    public var outputAudioTranscription: EmptyObject?
    public var sessionResumption: SessionResumptionConfig?
    public var contextWindowCompression: ContextWindowCompression?
    public var proactivity: Proactivity?

    public init(
        model: String, generationConfig: GenerationConfig? = nil, systemInstruction: Content? = nil,
        tools: [Tool]? = nil, realtimeInputConfig: RealtimeInputConfig? = nil,
        inputAudioTranscription: EmptyObject? = nil, outputAudioTranscription: EmptyObject? = nil,
        sessionResumption: SessionResumptionConfig? = nil, contextWindowCompression: ContextWindowCompression? = nil,
        proactivity: Proactivity? = nil
    ) {
        self.model = model
        self.generationConfig = generationConfig
        self.systemInstruction = systemInstruction
        self.tools = tools
        self.realtimeInputConfig = realtimeInputConfig
        self.inputAudioTranscription = inputAudioTranscription
        self.outputAudioTranscription = outputAudioTranscription
        self.sessionResumption = sessionResumption
        self.contextWindowCompression = contextWindowCompression
        self.proactivity = proactivity
    }

    /// Whether the server detects speech itself (open mic) rather than waiting for `activityStart`/`activityEnd`.
    public var automaticActivityDetection: Bool {
        realtimeInputConfig?.automaticActivityDetection?.disabled != true
    }

    /// The voice named in the speech config, if any.
    public var voiceName: String? { generationConfig?.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName }
}

public struct GenerationConfig: Codable, Sendable, Equatable {
    public var responseModalities: [String]?
    public var temperature: Double?
    public var topP: Double?
    public var topK: Int?
    public var maxOutputTokens: Int?
    public var seed: Int?
    public var mediaResolution: String?
    public var speechConfig: SpeechConfig?
    public var thinkingConfig: ThinkingConfig?
    public var enableAffectiveDialog: Bool?

    public init(
        responseModalities: [String]? = ["AUDIO"], temperature: Double? = nil, topP: Double? = nil, topK: Int? = nil,
        maxOutputTokens: Int? = nil, seed: Int? = nil, mediaResolution: String? = nil,
        speechConfig: SpeechConfig? = nil, thinkingConfig: ThinkingConfig? = nil, enableAffectiveDialog: Bool? = nil
    ) {
        self.responseModalities = responseModalities
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.maxOutputTokens = maxOutputTokens
        self.seed = seed
        self.mediaResolution = mediaResolution
        self.speechConfig = speechConfig
        self.thinkingConfig = thinkingConfig
        self.enableAffectiveDialog = enableAffectiveDialog
    }
}

public struct SpeechConfig: Codable, Sendable, Equatable {
    public var voiceConfig: VoiceConfig?
    public var languageCode: String?
    public init(voiceName: String, languageCode: String? = nil) {
        voiceConfig = VoiceConfig(prebuiltVoiceConfig: .init(voiceName: voiceName))
        self.languageCode = languageCode
    }
}

public struct VoiceConfig: Codable, Sendable, Equatable {
    public var prebuiltVoiceConfig: PrebuiltVoiceConfig?
}

public struct PrebuiltVoiceConfig: Codable, Sendable, Equatable {
    public var voiceName: String
}

public struct ThinkingConfig: Codable, Sendable, Equatable {
    public var thinkingBudget: Int?
    public var thinkingLevel: String?
    public var includeThoughts: Bool?
    public init(thinkingBudget: Int? = nil, thinkingLevel: String? = nil, includeThoughts: Bool? = nil) {
        self.thinkingBudget = thinkingBudget
        self.thinkingLevel = thinkingLevel
        self.includeThoughts = includeThoughts
    }
}

/// Content: a role and its parts (used for the system instruction and `clientContent` turns).
public struct Content: Codable, Sendable, Equatable {
    public var role: String?
    public var parts: [Part]
    public init(role: String? = nil, parts: [Part]) {
        self.role = role
        self.parts = parts
    }
    /// A content with one text part.
    public init(role: String? = nil, text: String) { self.init(role: role, parts: [Part(text: text)]) }

    /// All text parts joined.
    public var text: String { parts.compactMap(\.text).joined() }
}

/// One part of a content: text, inline bytes (audio), or code the model ran.
public struct Part: Codable, Sendable, Equatable {
    public var text: String?
    public var inlineData: Blob?
    public var thought: Bool?
    public var executableCode: ExecutableCode?
    public var codeExecutionResult: CodeExecutionResult?
    public init(
        text: String? = nil, inlineData: Blob? = nil, thought: Bool? = nil, executableCode: ExecutableCode? = nil,
        codeExecutionResult: CodeExecutionResult? = nil
    ) {
        self.text = text
        self.inlineData = inlineData
        self.thought = thought
        self.executableCode = executableCode
        self.codeExecutionResult = codeExecutionResult
    }
}

/// Code the model wrote and ran (seen around function calls).
public struct ExecutableCode: Codable, Sendable, Equatable {
    public var language: String?
    public var code: String?
    public init(language: String? = nil, code: String? = nil) {
        self.language = language
        self.code = code
    }
}

/// What running `ExecutableCode` gave.
public struct CodeExecutionResult: Codable, Sendable, Equatable {
    /// `OUTCOME_OK`, `OUTCOME_FAILED`, `OUTCOME_DEADLINE_EXCEEDED`.
    public var outcome: String?
    public var output: String?
    public init(outcome: String? = nil, output: String? = nil) {
        self.outcome = outcome
        self.output = output
    }
}

/// Tools declared in `setup`.
public struct Tool: Codable, Sendable, Equatable {
    public var functionDeclarations: [FunctionDeclaration]?
    public var googleSearch: EmptyObject?
    public init(functionDeclarations: [FunctionDeclaration]? = nil, googleSearch: EmptyObject? = nil) {
        self.functionDeclarations = functionDeclarations
        self.googleSearch = googleSearch
    }
}

public struct FunctionDeclaration: Codable, Sendable, Equatable {
    public var name: String
    public var description: String?
    /// A JSON-schema object describing the arguments.
    public var parameters: JSONValue?
    /// `BLOCKING` or `NON_BLOCKING` (models with asynchronous functions only).
    public var behavior: String?
    public init(name: String, description: String? = nil, parameters: JSONValue? = nil, behavior: String? = nil) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.behavior = behavior
    }
}

public struct RealtimeInputConfig: Codable, Sendable, Equatable {
    public var automaticActivityDetection: AutomaticActivityDetection?
    /// `START_OF_ACTIVITY_INTERRUPTS` or `NO_INTERRUPTION`.
    public var activityHandling: String?
    /// `TURN_INCLUDES_ONLY_ACTIVITY` or `TURN_INCLUDES_ALL_INPUT`.
    public var turnCoverage: String?
    public init(
        automaticActivityDetection: AutomaticActivityDetection? = nil, activityHandling: String? = nil,
        turnCoverage: String? = nil
    ) {
        self.automaticActivityDetection = automaticActivityDetection
        self.activityHandling = activityHandling
        self.turnCoverage = turnCoverage
    }
}

public struct AutomaticActivityDetection: Codable, Sendable, Equatable {
    public var disabled: Bool?
    /// `START_SENSITIVITY_HIGH` or `START_SENSITIVITY_LOW`.
    public var startOfSpeechSensitivity: String?
    /// `END_SENSITIVITY_HIGH` or `END_SENSITIVITY_LOW`.
    public var endOfSpeechSensitivity: String?
    public var prefixPaddingMs: Int?
    public var silenceDurationMs: Int?
    public init(
        disabled: Bool? = nil, startOfSpeechSensitivity: String? = nil, endOfSpeechSensitivity: String? = nil,
        prefixPaddingMs: Int? = nil, silenceDurationMs: Int? = nil
    ) {
        self.disabled = disabled
        self.startOfSpeechSensitivity = startOfSpeechSensitivity
        self.endOfSpeechSensitivity = endOfSpeechSensitivity
        self.prefixPaddingMs = prefixPaddingMs
        self.silenceDurationMs = silenceDurationMs
    }
}

/// `sessionResumption: {}` asks for handles; with a handle it resumes that session.
public struct SessionResumptionConfig: Codable, Sendable, Equatable {
    public var handle: Secret?
    /// Vertex AI only: the server reports which client messages a resumed session already consumed.
    public var transparent: Bool?
    public init(handle: Secret? = nil, transparent: Bool? = nil) {
        self.handle = handle
        self.transparent = transparent
    }
}

public struct ContextWindowCompression: Codable, Sendable, Equatable {
    public struct SlidingWindow: Codable, Sendable, Equatable {
        public var targetTokens: Int?
        public init(targetTokens: Int? = nil) { self.targetTokens = targetTokens }
    }
    public var slidingWindow: SlidingWindow?
    public var triggerTokens: Int?
    public init(slidingWindow: SlidingWindow? = .init(), triggerTokens: Int? = nil) {
        self.slidingWindow = slidingWindow
        self.triggerTokens = triggerTokens
    }
}

public struct Proactivity: Codable, Sendable, Equatable {
    public var proactiveAudio: Bool?
    public init(proactiveAudio: Bool? = nil) { self.proactiveAudio = proactiveAudio }
}
