import Foundation

/// Where the Live API is served from; list prices differ.
public enum Backend: String, Sendable, Equatable, CaseIterable, Codable {
    case aiStudio = "ai-studio"
    case vertex

    /// Vertex when the endpoint is Vertex AI's (`…aiplatform.googleapis.com`), AI Studio otherwise.
    public static func of(endpoint: String?) -> Backend {
        (endpoint ?? "").lowercased().contains("aiplatform.googleapis.com") ? .vertex : .aiStudio
    }

    public var title: String { self == .vertex ? "Vertex AI" : "AI Studio" }
}

/// Which tokens a price is for.
public enum PriceKind: Sendable, Equatable, Hashable, Comparable {
    case input(UsageModality)
    case cached(UsageModality)
    case output(UsageModality)

    /// `audio in`, `text cached`, `audio out`.
    public var label: String {
        switch self {
        case .input(let m): "\(m.label) in"
        case .cached(let m): "\(m.label) cached"
        case .output(let m): "\(m.label) out"
        }
    }

    /// The config key (`input_audio`, `cached_text`, `output_image_video`).
    public var configKey: String {
        switch self {
        case .input(let m): "input_\(Self.key(m))"
        case .cached(let m): "cached_\(Self.key(m))"
        case .output(let m): "output_\(Self.key(m))"
        }
    }

    static func key(_ m: UsageModality) -> String { m == .imageVideo ? "image_video" : m.rawValue }

    /// Every kind, in the order tables print them.
    public static let all: [PriceKind] = [.text, .audio, .imageVideo].map(PriceKind.input)
        + [.text, .audio, .imageVideo].map(PriceKind.cached) + [.text, .audio].map(PriceKind.output)

    public static func < (a: PriceKind, b: PriceKind) -> Bool {
        (all.firstIndex(of: a) ?? all.count) < (all.firstIndex(of: b) ?? all.count)
    }
}

/// One list price: US dollars per million tokens, with when and where it was read.
public struct Price: Sendable, Equatable {
    public var usdPerMillion: Double
    public var date: String
    public var source: String

    public init(_ usdPerMillion: Double, date: String, source: String) {
        self.usdPerMillion = usdPerMillion
        self.date = date
        self.source = source
    }
}

/// The prices of one model on one backend; a kind not in `prices` is unknown.
public struct ModelPrices: Sendable, Equatable {
    public var model: String
    public var backend: Backend
    public var prices: [PriceKind: Price]
    /// What was looked for and not found, or how a figure was read.
    public var note: String?

    public init(model: String, backend: Backend, prices: [PriceKind: Price] = [:], note: String? = nil) {
        self.model = model
        self.backend = backend
        self.prices = prices
        self.note = note
    }

    public subscript(_ kind: PriceKind) -> Price? { prices[kind] }

    /// What a turn cost under these prices. Tokens the details do not place in a modality are priced as text
    /// (the captures' gaps are the instruction and the transcripts); thoughts are priced as text output.
    public func cost(of t: TurnUsage) -> Cost {
        var cost = Cost()
        guard t.total != nil else {
            cost.unpriced.insert("usage not reported")
            return cost
        }
        func charge(_ tokens: Int, _ kind: PriceKind) {
            guard tokens > 0 else { return }
            if let p = prices[kind] { cost.usd += Double(tokens) * p.usdPerMillion / 1_000_000 } else { cost.unpriced.insert(kind.label) }
        }
        func byModality(_ counts: ModalityCounts?, total: Int?) -> ModalityCounts {
            var c = counts ?? ModalityCounts()
            let gap = max(0, (total ?? 0) - c.sum)
            if gap > 0 { c.counts[.text, default: 0] += gap }
            return c
        }
        if t.prompt == nil { cost.unpriced.insert("input not reported") }
        let prompt = byModality(t.promptByModality, total: t.prompt)
        let cached = byModality(t.cachedByModality, total: t.cached)
        let tools = byModality(t.toolUsePromptByModality, total: t.toolUsePrompt)
        for m in UsageModality.allCases {
            charge(max(0, prompt[m] - cached[m]) + tools[m], .input(m))
            charge(cached[m], .cached(m))
        }
        let response = byModality(t.responseByModality, total: t.response)
        for m in UsageModality.allCases { charge(response[m], .output(m)) }
        charge(t.thoughts ?? 0, .output(.text))
        return cost
    }
}

/// Money spent: what could be priced, and what could not.
public struct Cost: Sendable, Equatable {
    public var usd = 0.0
    /// Price kinds (`audio in`) with tokens but no price, or usage the service did not report.
    public var unpriced: Set<String> = []

    public init(usd: Double = 0, unpriced: Set<String> = []) {
        self.usd = usd
        self.unpriced = unpriced
    }

    public var isKnown: Bool { unpriced.isEmpty }

    public static func + (a: Cost, b: Cost) -> Cost { Cost(usd: a.usd + b.usd, unpriced: a.unpriced.union(b.unpriced)) }

    /// `$0.07`, `$0.0042` under a cent, `$0.00` for nothing.
    public static func dollars(_ usd: Double) -> String {
        if usd == 0 { return "$0.00" }
        return usd < 0.01 ? String(format: "$%.4f", usd) : String(format: "$%.2f", usd)
    }

    /// `≈ $0.07`, or `≈ $?` when part of it has no price.
    public var short: String { isKnown ? "≈ " + Self.dollars(usd) : "≈ $?" }

    /// `≈ $0.07`, or `≥ $0.05 (no price for audio in)` / `unknown (no price for audio in)`.
    public var long: String {
        if isKnown { return short }
        let why = "no price for " + unpriced.sorted().joined(separator: ", ")
        return usd > 0 ? "≥ \(Self.dollars(usd)) (\(why))" : "unknown (\(why))"
    }
}

/// List prices for the Live models, per backend, each with its date and source. Shipped with what could be found
/// and cited; everything else is unknown (never guessed). `[prices."MODEL"]` in the config overrides entries.
public struct PriceTable: Sendable, Equatable {
    public var entries: [ModelPrices]

    public init(entries: [ModelPrices]) { self.entries = entries }

    /// The prices for a model (with or without `models/`, aliases resolved) on a backend; empty when unknown.
    public func prices(model: String, backend: Backend) -> ModelPrices {
        let id = Self.canonical(model)
        return entries.first { $0.model == id && $0.backend == backend }
            ?? ModelPrices(model: id, backend: backend, note: "no list price known for \(id) on \(backend.title)")
    }

    /// Sets prices of one model; `backend` nil sets both backends.
    public mutating func set(model: String, backend: Backend?, _ prices: [PriceKind: Price]) {
        let id = Self.canonical(model)
        for b in backend.map({ [$0] }) ?? Backend.allCases {
            var entry = self.prices(model: id, backend: b)
            entry.prices.merge(prices) { _, new in new }
            entry.note = entry.note.map { $0.hasPrefix("no list price") ? "set in the config" : $0 + "; config overrides" } ?? "config overrides"
            entries.removeAll { $0.model == id && $0.backend == b }
            entries.append(entry)
        }
    }

    static func canonical(_ model: String) -> String {
        let bare = model.hasPrefix("models/") ? String(model.dropFirst("models/".count)) : model
        return LiveModel.named(bare)?.id ?? bare
    }

    /// The shipped table. Sources were read on 2026-11-24 with the dates they carry.
    public static let published: PriceTable = {
        let native25Source = "ai.google.dev/gemini-api/docs/pricing, Gemini 2.5 Flash Native Audio (Live API), paid tier (as quoted by anttisahla.com/ai/models/gemini-2-5-flash-live, verified 2026-05-16)"
        let native25 = "2026-05-16"
        let live38Source = "vercel.com/ai-gateway/models/gemini-3.8-live (one input and one output rate, no modality given: taken as the text rates)"
        let live38 = "2026-11-24"
        return PriceTable(entries: [
            ModelPrices(model: "gemini-2.5-flash-native-audio-preview-12-2025", backend: .aiStudio, prices: [
                .input(.text): Price(0.50, date: native25, source: native25Source),
                .input(.audio): Price(3.00, date: native25, source: native25Source),
                .input(.imageVideo): Price(3.00, date: native25, source: native25Source),
                .output(.text): Price(2.00, date: native25, source: native25Source),
                .output(.audio): Price(12.00, date: native25, source: native25Source),
            ], note: "no cached rate: the model does not cache"),
            ModelPrices(model: "gemini-3.8-live", backend: .aiStudio, prices: [
                .input(.text): Price(0.75, date: live38, source: live38Source),
                .output(.text): Price(4.50, date: live38, source: live38Source),
            ], note: "audio and image/video rates not found in a public list: unknown until set under [prices.\"gemini-3.8-live\"]"),
        ])
    }()

    /// A table for `parley models --prices`.
    public var listing: String {
        var lines: [String] = ["US dollars per million tokens; — is unknown (set it under [prices.\"MODEL\"] in the config)."]
        let models = LiveModel.all.map(\.id) + entries.map(\.model).filter { id in !LiveModel.all.contains { $0.id == id } }
        var seen = Set<String>()
        for model in models where seen.insert(model).inserted {
            for backend in Backend.allCases {
                let p = prices(model: model, backend: backend)
                lines.append("")
                lines.append("\(model) · \(backend.title)")
                let cells = PriceKind.all.map { k in "\(k.label) " + (p[k].map { String(format: "%.2f", $0.usdPerMillion) } ?? "—") }
                lines.append("  " + cells.prefix(3).joined(separator: " · "))
                lines.append("  " + cells.dropFirst(3).prefix(3).joined(separator: " · "))
                lines.append("  " + cells.dropFirst(6).joined(separator: " · "))
                var sources: [String: [String]] = [:]
                for k in PriceKind.all { if let price = p[k] { sources["\(price.date): \(price.source)", default: []].append(k.label) } }
                for (source, kinds) in sources.sorted(by: { $0.key < $1.key }) {
                    lines.append("  \(kinds.joined(separator: ", ")) — \(source)")
                }
                if let note = p.note { lines.append("  note: \(note)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
