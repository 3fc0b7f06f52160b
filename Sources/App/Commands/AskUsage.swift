import Conversation
import Live

/// `ask`'s usage: each turn priced as its usage arrives, a `usage` line per turn for `--json`, a `usageSummary`
/// and a plain line at the end, and the budget (reached: no further turn is asked, exit status 3). Used from
/// ask's event loop only.
final class AskUsage {
    private(set) var state: UsageState

    init(config: Config) { state = UsageState(config: config) }

    /// Takes a `.usage` event; returns its JSON line.
    func take(_ u: UsageMetadata) -> String {
        let cost = state.record(u)
        let i = state.ledger.turns.count - 1
        return Self.line(turn: state.ledger.carried.turns + i + 1, state.ledger.turns[i], cost: cost, cumulative: state.cumulative(through: i), state: state)
    }

    var overBudget: Bool { state.overBudget }

    /// The message `ask` exits with when the budget is spent.
    var budgetMessage: String {
        "budget reached: \(state.budgetLine ?? "") — nothing more was asked; raise --budget (or [usage] budget) to go on"
    }

    /// `3 turns · 4,123 tokens · ≈ $0.0042`.
    var summaryLine: String { state.summaryLine }

    /// `{"event":"usage","turn":1,"promptTokens":…,"input":{"text":…,"audio":…,"imageVideo":…},…,"costUsd":…}`:
    /// counts as reported (null when not), the billed input (prompt less cached), the cost (null when part of it
    /// has no price, with `unpriced` saying which) and the running totals.
    static func line(turn: Int, _ t: TurnUsage, cost: Cost, cumulative: Cost, state: UsageState) -> String {
        var f: [String: JSONValue] = ["event": "usage", "turn": number(turn)]
        f["promptTokens"] = number(t.prompt)
        f["cachedTokens"] = number(t.cached)
        f["billedInputTokens"] = number(t.billedInput)
        f["responseTokens"] = number(t.response)
        f["thoughtsTokens"] = number(t.thoughts)
        f["toolUsePromptTokens"] = number(t.toolUsePrompt)
        f["totalTokens"] = number(t.total)
        f["input"] = modalities(t.promptByModality)
        f["cached"] = modalities(t.cachedByModality)
        f["output"] = modalities(t.responseByModality)
        if let traffic = t.trafficType { f["trafficType"] = .string(traffic) }
        money(cost, into: &f, key: "costUsd")
        f["cumulativeTokens"] = number(state.ledger.tokens)
        f["cumulativeCostUsd"] = cumulative.isKnown ? .number(cumulative.usd) : .null
        f["contextTokens"] = number(state.ledger.contextTokens)
        f["contextLimit"] = number(state.ledger.inputTokenLimit)
        return JSONValue.object(f).compactText
    }

    /// `{"event":"usageSummary","turns":…,"tokens":…,"costUsd":…,…}`, printed once at the end.
    var summaryJSON: String {
        let sum = state.ledger.sum
        var f: [String: JSONValue] = ["event": "usageSummary"]
        f["turns"] = Self.number(state.ledger.turnCount)
        f["tokens"] = Self.number(state.ledger.tokens)
        f["turnsWithoutUsage"] = Self.number(state.ledger.unknownTurns)
        f["promptTokens"] = Self.number(sum.prompt)
        f["billedInputTokens"] = Self.number(sum.billedInput)
        f["cachedTokens"] = Self.number(sum.cached)
        f["responseTokens"] = Self.number(sum.response)
        f["thoughtsTokens"] = Self.number(sum.thoughts)
        f["input"] = Self.modalities(sum.promptByModality)
        f["output"] = Self.modalities(sum.responseByModality)
        Self.money(state.total, into: &f, key: "costUsd")
        f["contextTokens"] = Self.number(state.ledger.contextTokens)
        f["contextLimit"] = Self.number(state.ledger.inputTokenLimit)
        f["slidingWindow"] = .bool(state.ledger.slidingWindow)
        f["model"] = .string(state.prices.model)
        f["backend"] = .string(state.prices.backend.rawValue)
        if let b = state.budget {
            f["budgetUsd"] = .number(b.limit)
            f["budgetReached"] = .bool(state.overBudget)
        }
        return JSONValue.object(f).compactText
    }

    static func number(_ n: Int?) -> JSONValue { n.map { .number(Double($0)) } ?? .null }

    static func modalities(_ c: ModalityCounts?) -> JSONValue {
        guard let c else { return .null }
        return .object(["text": number(c[.text]), "audio": number(c[.audio]), "imageVideo": number(c[.imageVideo]), "other": number(c[.other])])
    }

    static func money(_ c: Cost, into f: inout [String: JSONValue], key: String) {
        f[key] = c.isKnown ? .number(c.usd) : .null
        if !c.isKnown {
            f["unpriced"] = .array(c.unpriced.sorted().map { .string($0) })
            f["pricedUsd"] = .number(c.usd)
        }
    }
}
