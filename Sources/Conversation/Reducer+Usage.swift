import Live
import TUI

/// Usage, cost and the budget: each turn's usage is priced as it arrives; at 80 % of the budget the header
/// warns, at 100 % the mic closes (what was said so far still goes out), typed turns stay in the input line,
/// and one key decides whether to go on.
extension Reducer {
    static func usage(_ s: inout AppState, _ u: UsageMetadata, now: Double) -> [Effect] {
        let before = s.usage.budgetLevel
        s.usage.record(u)
        var fx: [Effect] = [.record(.usage(u))]
        refreshUsage(&s)
        let after = s.usage.budgetLevel
        if case .warning(let p) = after, case .fine = before {
            fx += system(&s, "\(s.usage.budgetLine ?? "budget") — \(p)% of it")
        }
        if s.usage.budget != nil, !s.usage.total.isKnown, !s.budgetUnpricedNoted {
            s.budgetUnpricedNoted = true
            fx += system(&s, "the budget cannot be kept exactly: \(s.usage.total.long); set prices under [prices.\"\(s.usage.prices.model)\"]", error: true)
        }
        if after == .reached, before != .reached { fx += budgetReached(&s, now: now) }
        return fx
    }

    /// The header and an open usage view follow the ledger.
    package static func refreshUsage(_ s: inout AppState) {
        s.ui.header.tokens = s.usage.ledger.turnCount > 0 ? s.usage.ledger.tokens : s.ui.header.tokens
        s.ui.header.cost = s.usage.ledger.turnCount > 0 || s.usage.budget != nil ? s.usage.total.short : nil
        s.ui.header.contextPercent = s.usage.ledger.contextPercent
        s.ui.header.budget = s.usage.budgetLevel
        if case .usage = s.ui.overlay { s.ui.overlay = .usage(s.usage.table) }
    }

    static func budgetReached(_ s: inout AppState, now: Double) -> [Effect] {
        var fx: [Effect] = []
        // What was said so far still goes out: closing the gate delivers the chunk in flight.
        if s.talk.micIsOpen { fx += s.talk.closeMic(now: now, muted: s.talk.mode == .open) }
        s.talk.cancelGesture()
        fx += system(&s, "budget reached (\(s.usage.budgetLine ?? "")): the mic and typed messages wait until you say to go on", error: true)
        askBudget(&s)
        return fx
    }

    /// Shows the one-key question, unless a tool's question is on screen (then the status line says how to ask).
    static func askBudget(_ s: inout AppState) {
        s.status = .budgetReachedAsk
        if case .confirm? = s.ui.overlay, !s.budgetAsking { return }
        let step = Cost.dollars(s.usage.budget?.limit ?? 0)
        s.budgetAsking = true
        s.ui.overlay = .confirm(ConfirmModel(
            title: "Budget reached", question: "\(s.usage.budgetLine ?? "") — go on for another \(step)? y = go on, n = stay stopped"))
    }

    static func answerBudget(_ s: inout AppState, yes: Bool) -> [Effect] {
        s.budgetAsking = false
        s.ui.overlay = nil
        var fx: [Effect] = []
        if yes {
            s.usage.extendBudget()
            s.status = nil
            fx += system(&s, "going on: the next stop is at \(Cost.dollars(s.usage.budget?.allowance ?? 0))")
            if s.talk.mode == .open, s.talk.isMuted {
                // The budget muted it: the pending end of the audio stream goes out first.
                fx += s.talk.settleClosing()
                s.talk.unmute()
            }
            fx += openMicIfWanted(&s)
        } else {
            s.status = .budgetReachedWaiting
        }
        refreshUsage(&s)
        showNextConfirmation(&s)
        return fx
    }

    /// The usage a resumed conversation carries from its saved transcript (its own turns, and what it carried).
    package static func carriedUsage(_ records: [TranscriptRecord], prices: ModelPrices) -> UsageCarry {
        var carry = UsageCarry()
        var cost = Cost()
        for r in records {
            switch r.entry {
            case .usageCarried(let c):
                carry.turns += c.turns
                carry.tokens += c.tokens
                cost = cost + Cost(usd: c.usd, unpriced: Set(c.unpriced))
            case .usage(let u):
                let t = TurnUsage(u)
                carry.turns += 1
                carry.tokens += t.total ?? 0
                cost = cost + prices.cost(of: t)
            default:
                break
            }
        }
        carry.usd = cost.usd
        carry.unpriced = cost.unpriced.sorted()
        return carry
    }
}
