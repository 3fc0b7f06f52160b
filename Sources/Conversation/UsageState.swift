import Live
import TUI

/// A conversation's usage and what it cost, with its budget: the one owner of both. The full-screen app keeps
/// it in `AppState.usage`; `ask` keeps one in `AskUsage`. Each turn's cost is priced when its usage arrives.
package struct UsageState: Sendable, Equatable {
    package var ledger: UsageLedger
    package var prices: ModelPrices
    /// One cost a turn, in step with `ledger.turns`.
    package private(set) var costs: [Cost] = []
    package var budget: Budget?

    package init(model: String, backend: Backend, table: PriceTable, slidingWindow: Bool, budget: Double?) {
        ledger = UsageLedger(inputTokenLimit: LiveModel.traits(of: model).inputTokenLimit, slidingWindow: slidingWindow)
        prices = table.prices(model: model, backend: backend)
        self.budget = budget.map(Budget.init(limit:))
    }

    /// Records one turn's usage; returns its cost.
    @discardableResult
    package mutating func record(_ u: UsageMetadata) -> Cost {
        ledger.record(u)
        let cost = prices.cost(of: ledger.turns[ledger.turns.count - 1])
        costs.append(cost)
        return cost
    }

    /// What earlier parts of a resumed conversation used (from its saved transcript).
    package mutating func carry(_ carry: UsageCarry) { ledger.carried = carry }

    /// The conversation's cost so far, earlier parts included.
    package var total: Cost {
        costs.reduce(Cost(usd: ledger.carried.usd, unpriced: Set(ledger.carried.unpriced)), +)
    }

    /// The cost up to and including turn `i` of this part.
    package func cumulative(through i: Int) -> Cost {
        costs.prefix(i + 1).reduce(Cost(usd: ledger.carried.usd, unpriced: Set(ledger.carried.unpriced)), +)
    }

    /// What this conversation used, to carry into a resumed one.
    var asCarry: UsageCarry {
        let t = total
        return UsageCarry(turns: ledger.turnCount, tokens: ledger.tokens, usd: t.usd, unpriced: t.unpriced.sorted())
    }

    // MARK: budget

    var budgetLevel: BudgetLevel {
        guard let b = budget else { return .fine }
        let spent = total.usd
        if spent >= b.allowance { return .reached }
        let percent = Int((spent * 100 / b.allowance).rounded(.down))
        return percent >= 80 ? .warning(percent: percent) : .fine
    }

    /// The budget is spent and the user has not said to go on.
    package var overBudget: Bool { budgetLevel == .reached }

    /// The user said to go on: the next stop is one more budget further.
    mutating func extendBudget() {
        guard var b = budget else { return }
        while b.allowance <= total.usd { b.allowance += b.limit }
        budget = b
    }

    // MARK: words

    /// `12 turns · 41,230 tokens · ≈ $0.07` (the line parley prints when it exits).
    package var summaryLine: String {
        let n = ledger.turnCount
        var parts = ["\(n) turn\(n == 1 ? "" : "s")", "\(HeaderView.grouped(ledger.tokens)) tokens", total.long]
        if ledger.unknownTurns > 0 { parts.append("\(ledger.unknownTurns) without usage") }
        return parts.joined(separator: " · ")
    }

    /// `budget reached: $0.52 of $0.50 spent`.
    package var budgetLine: String? {
        guard let b = budget else { return nil }
        return "budget \(Cost.dollars(b.limit))" + (b.allowance > b.limit ? " (raised to \(Cost.dollars(b.allowance)))" : "")
            + ": \(Cost.dollars(total.usd)) spent"
    }

    /// The overlay's table.
    package var table: UsageTable {
        let rows = ledger.turns.indices.map { i -> UsageTable.Row in
            let t = ledger.turns[i]
            let byModality = t.promptByModality
            return UsageTable.Row(
                turn: ledger.carried.turns + i + 1, input: t.billedInput, inputText: byModality?[.text], inputAudio: byModality?[.audio],
                inputImageVideo: byModality?[.imageVideo], cached: t.cached, output: t.response, thoughts: t.thoughts,
                cost: costs[i].isKnown ? Cost.dollars(costs[i].usd) : "?", cumulative: Self.money(cumulative(through: i)))
        }
        var notes = [summaryLine]
        if ledger.carried.turns > 0 {
            notes.append("of which \(ledger.carried.turns) earlier turns (\(HeaderView.grouped(ledger.carried.tokens)) tokens, \(Cost.dollars(ledger.carried.usd))) before this resume")
        }
        if let c = ledger.contextTokens {
            let limit = ledger.inputTokenLimit.map { " of \(HeaderView.grouped($0)) (\(ledger.contextPercent ?? 0)%)" } ?? ""
            notes.append("context now \(HeaderView.grouped(c))\(limit) · sliding window \(ledger.slidingWindow ? "on" : "off")")
        }
        if !total.isKnown { notes.append("cost " + total.long) }
        notes.append("prices: \(prices.backend.title) list prices for \(prices.model)\(prices.note.map { " — \($0)" } ?? "")")
        notes.append("in = the whole context, billed again each turn, less cached; tokens not itemised are priced as text")
        var warning: String?
        switch budgetLevel {
        case .fine: if let l = budgetLine { notes.insert(l, at: 1) }
        case .warning(let p): warning = (budgetLine ?? "") + " (\(p)%)"
        case .reached: warning = (budgetLine ?? "") + " — the budget is reached"
        }
        return UsageTable(rows: rows, notes: notes, warning: warning)
    }

    /// `$0.0042`, or `≥ $0.0042` when part of it has no price.
    package static func money(_ c: Cost) -> String { (c.isKnown ? "" : "≥") + Cost.dollars(c.usd) }
}

/// A spending limit for one conversation (`--budget`, `[usage] budget`), across reconnects and resumes.
package struct Budget: Sendable, Equatable {
    /// US dollars, as given.
    package var limit: Double
    /// Where parley stops next: `limit`, raised by `limit` each time the user says to go on.
    var allowance: Double

    package init(limit: Double) {
        self.limit = limit
        allowance = limit
    }
}
