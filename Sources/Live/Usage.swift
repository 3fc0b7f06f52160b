/// What a token was: the service reports `TEXT`, `AUDIO`, `IMAGE`, `VIDEO`, `DOCUMENT`; images and video are
/// priced alike, so they count together.
public enum UsageModality: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case text
    case audio
    /// `IMAGE` and `VIDEO`.
    case imageVideo
    /// `DOCUMENT`, `MODALITY_UNSPECIFIED`, or a name parley does not know.
    case other

    public init(wire: String?) {
        switch wire?.uppercased() {
        case "TEXT"?: self = .text
        case "AUDIO"?: self = .audio
        case "IMAGE"?, "VIDEO"?: self = .imageVideo
        default: self = .other
        }
    }

    /// `text`, `audio`, `image/video`, `other`.
    public var label: String { self == .imageVideo ? "image/video" : rawValue }
}

/// Token counts by modality, as the details arrays report them (a modality absent from the array is 0).
public struct ModalityCounts: Sendable, Equatable, Codable {
    public var counts: [UsageModality: Int]

    public init(_ counts: [UsageModality: Int] = [:]) { self.counts = counts }

    /// Nil for a missing array: "not reported" is not "zero".
    public init?(_ details: [UsageMetadata.ModalityTokenCount]?) {
        guard let details else { return nil }
        var c: [UsageModality: Int] = [:]
        for d in details { c[UsageModality(wire: d.modality), default: 0] += max(0, d.tokenCount ?? 0) }
        counts = c
    }

    public subscript(_ m: UsageModality) -> Int { counts[m] ?? 0 }
    public var sum: Int { counts.values.reduce(0, +) }

    public static func + (a: ModalityCounts, b: ModalityCounts) -> ModalityCounts {
        ModalityCounts(a.counts.merging(b.counts, uniquingKeysWith: +))
    }
}

/// One turn's usage as the service reported it (`usageMetadata` with `turnComplete`). Every count is optional:
/// a field the service did not send is unknown, never zero. Totals that disagree with their details are kept as
/// reported; what the details do not cover is `unattributed`.
public struct TurnUsage: Sendable, Equatable, Codable {
    /// The whole context so far (`promptTokenCount`): billed again each turn, less what is cached.
    public var prompt: Int?
    public var promptByModality: ModalityCounts?
    public var cached: Int?
    public var cachedByModality: ModalityCounts?
    public var response: Int?
    public var responseByModality: ModalityCounts?
    public var thoughts: Int?
    public var toolUsePrompt: Int?
    public var toolUsePromptByModality: ModalityCounts?
    /// `totalTokenCount` as reported.
    public var reportedTotal: Int?
    /// Vertex's `trafficType`.
    public var trafficType: String?

    public init(_ u: UsageMetadata) {
        prompt = u.promptTokenCount.map { max(0, $0) }
        promptByModality = ModalityCounts(u.promptTokensDetails)
        cached = u.cachedContentTokenCount.map { max(0, $0) }
        cachedByModality = ModalityCounts(u.cacheTokensDetails)
        response = u.responseTokenCount.map { max(0, $0) }
        responseByModality = ModalityCounts(u.responseTokensDetails)
        thoughts = u.thoughtsTokenCount.map { max(0, $0) }
        toolUsePrompt = u.toolUsePromptTokenCount.map { max(0, $0) }
        toolUsePromptByModality = ModalityCounts(u.toolUsePromptTokensDetails)
        reportedTotal = u.totalTokenCount.map { max(0, $0) }
        trafficType = u.trafficType
    }

    /// The turn's tokens: `totalTokenCount` when sent, else the sum of the parts that were; nil when none was.
    public var total: Int? {
        if let reportedTotal { return reportedTotal }
        let parts = [prompt, response, thoughts, toolUsePrompt].compactMap { $0 }
        return parts.isEmpty ? nil : parts.reduce(0, +)
    }

    /// What this turn bills as fresh input: the prompt (the whole context) and the tool-use prompt, less what
    /// was cached; never negative. Nil when the prompt was not reported.
    public var billedInput: Int? {
        guard let prompt else { return nil }
        return max(0, prompt + (toolUsePrompt ?? 0) - (cached ?? 0))
    }

    /// What the context holds after this turn: its prompt and its reply.
    public var contextAfter: Int? { prompt.map { $0 + (response ?? 0) } }

    /// Prompt tokens the details do not cover (shown as reported, never negative).
    public var unattributedPrompt: Int { max(0, (prompt ?? 0) - (promptByModality?.sum ?? 0)) }
    public var unattributedResponse: Int { max(0, (response ?? 0) - (responseByModality?.sum ?? 0)) }
}

/// A conversation's usage: every turn, their sums, the context now against the model's window.
public struct UsageLedger: Sendable, Equatable {
    public var turns: [TurnUsage] = []
    /// What earlier parts of this conversation used (a resumed conversation carries its spending).
    public var carried = UsageCarry()
    /// The model's input window (`LiveModel.inputTokenLimit`).
    public var inputTokenLimit: Int?
    /// Sliding-window compression is on: the context is trimmed instead of filling up.
    public var slidingWindow: Bool

    public init(inputTokenLimit: Int? = nil, slidingWindow: Bool = false) {
        self.inputTokenLimit = inputTokenLimit
        self.slidingWindow = slidingWindow
    }

    public mutating func record(_ u: UsageMetadata) { turns.append(TurnUsage(u)) }

    /// Turns in the conversation, earlier parts included.
    public var turnCount: Int { carried.turns + turns.count }

    /// Tokens over the conversation (each turn's total), earlier parts included.
    public var tokens: Int { carried.tokens + turns.compactMap(\.total).reduce(0, +) }

    /// Turns whose usage said nothing at all.
    public var unknownTurns: Int { turns.filter { $0.total == nil }.count }

    /// The context now (the last turn's prompt and reply); nil before the first report.
    public var contextTokens: Int? { turns.last { $0.prompt != nil }?.contextAfter }

    /// How full the window is, in per cent (nil when the size or the window is unknown).
    public var contextPercent: Int? {
        guard let c = contextTokens, let limit = inputTokenLimit, limit > 0 else { return nil }
        return Int((Double(c) * 100 / Double(limit)).rounded())
    }

    /// Sums by field over this part's turns (unknown fields count as nothing).
    public var sum: Sum {
        var s = Sum()
        for t in turns {
            s.prompt += t.prompt ?? 0
            s.billedInput += t.billedInput ?? 0
            s.cached += t.cached ?? 0
            s.response += t.response ?? 0
            s.thoughts += t.thoughts ?? 0
            s.toolUsePrompt += t.toolUsePrompt ?? 0
            s.total += t.total ?? 0
            s.promptByModality = s.promptByModality + (t.promptByModality ?? ModalityCounts())
            s.responseByModality = s.responseByModality + (t.responseByModality ?? ModalityCounts())
        }
        return s
    }

    public struct Sum: Sendable, Equatable {
        public var prompt = 0, billedInput = 0, cached = 0, response = 0, thoughts = 0, toolUsePrompt = 0, total = 0
        public var promptByModality = ModalityCounts(), responseByModality = ModalityCounts()
    }
}

/// What earlier parts of a conversation used, carried into a resumed one.
public struct UsageCarry: Sendable, Equatable, Codable {
    public var turns = 0
    public var tokens = 0
    /// Dollars priced then; `unpriced` says what could not be priced.
    public var usd = 0.0
    public var unpriced: [String] = []

    public init(turns: Int = 0, tokens: Int = 0, usd: Double = 0, unpriced: [String] = []) {
        self.turns = turns; self.tokens = tokens; self.usd = usd; self.unpriced = unpriced
    }
}
