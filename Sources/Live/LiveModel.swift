import Foundation

/// A Live model parley knows, with what its setup accepts. The setup is built from this table, and an option
/// a model does not take is refused before connecting (the service would close with 1007).
public struct LiveModel: Sendable, Equatable {
    /// How a model is told to think.
    public enum Thinking: Sendable, Equatable {
        /// No `thinkingConfig` at all.
        case none
        /// `thinkingConfig.thinkingBudget` (tokens).
        case budget
        /// `thinkingConfig.thinkingLevel`, one of `levels`.
        case level(levels: [String])
    }

    /// Whether `proactivity.proactiveAudio` may be sent.
    public enum ProactiveAudio: Sendable, Equatable {
        case unsupported
        /// Off unless asked for.
        case optional
        /// Always on: only `true` (or nothing) may be sent.
        case alwaysOn
    }

    /// `behavior` of a function declaration.
    public enum FunctionBehavior: String, Sendable, Equatable, CaseIterable {
        case blocking = "BLOCKING"
        case nonBlocking = "NON_BLOCKING"
    }

    public let id: String
    /// One line for `parley models`.
    public let summary: String
    public let thinking: Thinking
    public let affectiveDialog: Bool
    public let proactiveAudio: ProactiveAudio
    /// `clientContent` after setup; when false typed text goes as `realtimeInput.text`.
    public let midSessionClientContent: Bool
    /// The behaviour of a function declared without one; nil when the model only runs functions synchronously
    /// (no `behavior`, no `scheduling` may be sent).
    public let defaultFunctionBehavior: FunctionBehavior?
    /// `turnCoverage` when the setup names none.
    public let defaultTurnCoverage: String
    /// Text parts of `modelTurn` are the model's thoughts (the spoken words come as output transcription).
    public let textPartsAreThoughts: Bool
    /// Some runs end a turn with `generationComplete` and never send `turnComplete`.
    public let mayOmitTurnComplete: Bool
    /// A function response without `name` counts as a failure.
    public let functionResponseNeedsName: Bool
    /// The context window in tokens: 131,072 for 3.8 and the native-audio models, 32,768 for the others.
    public let inputTokenLimit: Int

    /// Whether `behavior` / `scheduling` may be sent.
    public var asyncFunctions: Bool { defaultFunctionBehavior != nil }

    /// The recommended default (GA since September 2026).
    public static let defaultID = "gemini-3.8-live"

    /// Every model parley knows, newest first.
    public static let all: [LiveModel] = [
        LiveModel(
            id: "gemini-3.8-live", summary: "GA, the default; async functions, proactive audio always on",
            thinking: .none, affectiveDialog: false, proactiveAudio: .alwaysOn, midSessionClientContent: true,
            defaultFunctionBehavior: .nonBlocking, defaultTurnCoverage: "TURN_INCLUDES_ALL_INPUT",
            textPartsAreThoughts: true, mayOmitTurnComplete: false, functionResponseNeedsName: false,
            inputTokenLimit: 131_072),
        LiveModel(
            id: "gemini-3.8-live-extended-thinking", summary: "3.8 with extended thinking (--thinking low|medium|high)",
            thinking: .level(levels: ["low", "medium", "high"]), affectiveDialog: false, proactiveAudio: .alwaysOn,
            midSessionClientContent: true, defaultFunctionBehavior: .nonBlocking,
            defaultTurnCoverage: "TURN_INCLUDES_ALL_INPUT", textPartsAreThoughts: true, mayOmitTurnComplete: false,
            functionResponseNeedsName: true, inputTokenLimit: 131_072),
        LiveModel(
            id: "gemini-3.1-flash-live-preview", summary: "legacy; synchronous functions, typed text as realtime input",
            thinking: .level(levels: ["minimal", "low", "medium", "high"]), affectiveDialog: false,
            proactiveAudio: .unsupported, midSessionClientContent: false, defaultFunctionBehavior: nil,
            defaultTurnCoverage: "TURN_INCLUDES_ONLY_ACTIVITY", textPartsAreThoughts: true, mayOmitTurnComplete: true,
            functionResponseNeedsName: false, inputTokenLimit: 32_768),
        LiveModel(
            id: "gemini-2.5-flash-native-audio-preview-12-2025", summary: "2.5 native audio; thinking budget, affective dialog",
            thinking: .budget, affectiveDialog: true, proactiveAudio: .optional, midSessionClientContent: true,
            defaultFunctionBehavior: .blocking, defaultTurnCoverage: "TURN_INCLUDES_ONLY_ACTIVITY",
            textPartsAreThoughts: true, mayOmitTurnComplete: false, functionResponseNeedsName: false,
            inputTokenLimit: 131_072),
    ]

    /// Other names of a model in the table.
    static let aliases = ["gemini-live-2.5-flash-native-audio": "gemini-2.5-flash-native-audio-preview-12-2025"]

    /// Models the service has shut down (it closes with 1008 "… is not found …").
    public static let shutDown = [
        "gemini-live-2.5-flash-preview", "gemini-2.0-flash-live-001", "gemini-2.0-flash-live-preview-04-09",
        "gemini-2.0-flash-exp",
    ]

    /// The ids of every model in the table, aliases included.
    public static var known: [String] { all.map(\.id) + aliases.keys.sorted() }

    /// The table entry for an id (bare, `models/…` or a Vertex AI resource name), aliases included.
    public static func named(_ id: String) -> LiveModel? {
        let bare = bareID(id)
        let canonical = aliases[bare] ?? bare
        return all.first { $0.id == canonical }
    }

    /// The entry for an id, or the default's traits under that id for a model parley does not know yet (a
    /// newer model is let through: the service has the last word).
    public static func traits(of id: String) -> LiveModel {
        named(id) ?? named(defaultID).map { $0.renamed(id) } ?? all[0]
    }

    /// `models/<id>` from either form.
    public static func resourceName(_ id: String) -> String { id.hasPrefix("models/") ? id : "models/\(id)" }

    private func renamed(_ id: String) -> LiveModel {
        LiveModel(
            id: id, summary: summary, thinking: thinking, affectiveDialog: affectiveDialog, proactiveAudio: proactiveAudio,
            midSessionClientContent: midSessionClientContent, defaultFunctionBehavior: defaultFunctionBehavior,
            defaultTurnCoverage: defaultTurnCoverage, textPartsAreThoughts: textPartsAreThoughts,
            mayOmitTurnComplete: mayOmitTurnComplete, functionResponseNeedsName: functionResponseNeedsName,
            inputTokenLimit: inputTokenLimit)
    }
}

/// When a NON_BLOCKING function's result reaches the model (`functionResponses[].scheduling`).
public enum ToolScheduling: String, Codable, Sendable, Equatable, CaseIterable {
    /// Stop what the model is saying and tell the result now.
    case interrupt = "INTERRUPT"
    /// Tell the result once the model is idle.
    case whenIdle = "WHEN_IDLE"
    /// Add the result to the context without a word.
    case silent = "SILENT"
}

/// What the user asked of the model beyond voice and tools; checked against ``LiveModel`` before connecting.
public struct ModelOptions: Sendable, Equatable {
    /// `thinkingLevel` (models with levels).
    public var thinkingLevel: String?
    /// `thinkingBudget` in tokens (models with a budget).
    public var thinkingBudget: Int?
    /// `speechConfig.languageCode`, e.g. `en-US`.
    public var languageCode: String?
    public var affectiveDialog: Bool?
    public var proactiveAudio: Bool?
    /// Behaviours the tools ask for, by function name (checked: a model with synchronous functions takes none).
    public var functionBehaviors: [String: LiveModel.FunctionBehavior]

    public init(
        thinkingLevel: String? = nil, thinkingBudget: Int? = nil, languageCode: String? = nil,
        affectiveDialog: Bool? = nil, proactiveAudio: Bool? = nil,
        functionBehaviors: [String: LiveModel.FunctionBehavior] = [:]
    ) {
        self.thinkingLevel = thinkingLevel
        self.thinkingBudget = thinkingBudget
        self.languageCode = languageCode
        self.affectiveDialog = affectiveDialog
        self.proactiveAudio = proactiveAudio
        self.functionBehaviors = functionBehaviors
    }
}

/// An option the chosen model does not take, found before connecting.
public struct ModelOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option as the user wrote it (`--thinking`, `affective_dialog`, …).
    public let option: String
    public let model: String
    /// Why, and what to do instead.
    public let hint: String

    public var description: String { "\(option) is not accepted by \(model): \(hint)" }
}

extension LiveModel {
    /// Checks the options against this model; the first one it does not take is the error.
    public func check(_ o: ModelOptions) throws(ModelOptionError) {
        func refuse(_ option: String, _ hint: String) -> ModelOptionError { ModelOptionError(option: option, model: id, hint: hint) }
        let withLevels = Self.all.filter { if case .level = $0.thinking { true } else { false } }.map(\.id)
        if let level = o.thinkingLevel {
            guard case .level(let levels) = thinking else {
                throw refuse("--thinking", thinking == .budget
                    ? "it takes a thinking budget, not a level"
                    : "it does not think on request; use --model \(withLevels.first ?? "") for levels")
            }
            guard levels.contains(level.lowercased()) else {
                throw refuse("--thinking \(level)", "choose one of \(levels.joined(separator: ", "))")
            }
        }
        if o.thinkingBudget != nil, thinking != .budget {
            throw refuse("thinking_budget", "only \(Self.all.filter { $0.thinking == .budget }.map(\.id).joined(separator: ", ")) take a budget")
        }
        if o.affectiveDialog == true, !affectiveDialog {
            throw refuse("--affective-dialog", "this model has no affective dialog (\(Self.all.filter(\.affectiveDialog).map(\.id).joined(separator: ", ")) has)")
        }
        switch (proactiveAudio, o.proactiveAudio) {
        case (.unsupported, true?): throw refuse("--proactive-audio", "this model has no proactive audio")
        case (.alwaysOn, false?): throw refuse("proactive_audio = false", "proactive audio is always on for this model; remove the setting")
        default: break
        }
        if defaultFunctionBehavior == nil, let name = o.functionBehaviors.keys.sorted().first {
            throw refuse("behavior of \(name)", "this model only runs functions synchronously; remove [tools.behavior]")
        }
    }

    /// Fills in the parts of `setup` this table decides: thinking, affective dialog, proactivity, language,
    /// function behaviours. Call ``check(_:)`` first.
    public func apply(_ o: ModelOptions, to setup: inout Setup) {
        var generation = setup.generationConfig ?? GenerationConfig()
        switch thinking {
        case .none: generation.thinkingConfig = nil
        case .budget: generation.thinkingConfig = o.thinkingBudget.map { ThinkingConfig(thinkingBudget: $0) }
        case .level: generation.thinkingConfig = o.thinkingLevel.map { ThinkingConfig(thinkingLevel: $0.lowercased()) }
        }
        generation.enableAffectiveDialog = affectiveDialog ? o.affectiveDialog : nil
        if let code = o.languageCode {
            var speech = generation.speechConfig ?? SpeechConfig(voiceName: Voice.defaultName)
            speech.languageCode = code
            generation.speechConfig = speech
        }
        setup.generationConfig = generation
        switch proactiveAudio {
        case .unsupported: setup.proactivity = nil
        // Always on: sending `false` is an error and `true` says nothing new.
        case .alwaysOn: setup.proactivity = nil
        case .optional: setup.proactivity = o.proactiveAudio == true ? Proactivity(proactiveAudio: true) : nil
        }
        guard let tools = setup.tools else { return }
        setup.tools = tools.map { tool in
            var t = tool
            t.functionDeclarations = tool.functionDeclarations?.map { d in
                var d = d
                d.behavior = asyncFunctions ? o.functionBehaviors[d.name]?.rawValue ?? d.behavior : nil
                return d
            }
            return t
        }
    }

    /// The behaviour a call of `function` runs with under this model.
    public func behavior(of function: String, in setup: Setup) -> FunctionBehavior {
        guard asyncFunctions else { return .blocking }
        let declared = (setup.tools ?? []).flatMap { $0.functionDeclarations ?? [] }.first { $0.name == function }
        return declared?.behavior.flatMap(FunctionBehavior.init(rawValue:)) ?? defaultFunctionBehavior ?? .blocking
    }

    /// Where a model is served, e.g. `Gemini API: yes · Vertex AI: not confirmed`.
    static func backendLine(_ id: String) -> String {
        Backend.allCases.map { b in
            switch availability(of: id, on: b) {
            case .served: "\(b.rawValue): yes"
            case .unconfirmed: "\(b.rawValue): not confirmed"
            case .notServed(let hint): "\(b.rawValue): no (\(hint))"
            }
        }.joined(separator: " · ")
    }

    /// A table for `parley models`.
    public static var listing: String {
        var lines: [String] = []
        for m in all {
            let thinking: String
            switch m.thinking {
            case .none: thinking = "none"
            case .budget: thinking = "budget"
            case .level(let levels): thinking = "level " + levels.joined(separator: "|")
            }
            let proactive: String
            switch m.proactiveAudio {
            case .unsupported: proactive = "no"
            case .optional: proactive = "optional"
            case .alwaysOn: proactive = "always on"
            }
            lines.append(m.id + (m.id == defaultID ? "  (default)" : ""))
            lines.append("  \(m.summary)")
            lines.append("  thinking: \(thinking) · affective dialog: \(m.affectiveDialog ? "yes" : "no") · proactive audio: \(proactive)")
            lines.append("  typed text: \(m.midSessionClientContent ? "clientContent" : "realtimeInput.text") · functions: \(m.defaultFunctionBehavior.map { "\($0.rawValue) by default, scheduling" } ?? "synchronous only") · turn coverage: \(m.defaultTurnCoverage)")
            lines.append("  " + backendLine(m.id))
            lines.append("  " + contextUpdateLine(m.id))
        }
        for (alias, target) in aliases.sorted(by: { $0.key < $1.key }) {
            lines.append("\(alias)  (\(target) by another name\(alias == vertexDefaultID ? "; the default on Vertex AI" : ""))")
            lines.append("  " + backendLine(alias))
        }
        lines.append("shut down: \(shutDown.joined(separator: ", "))")
        lines.append("on Vertex AI (--vertex): no function behavior (functions run synchronously); sessionResumption.transparent is Vertex AI only")
        return lines.joined(separator: "\n")
    }
}
