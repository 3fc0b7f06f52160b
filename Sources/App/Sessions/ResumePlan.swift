import Conversation
import Foundation
import Live
import ParleyTime

/// What `parley --resume [ID]` continues, read once before anything starts: the saved conversation, the
/// model, voice and system instruction it last had, and how it goes on — through the service's resumption
/// handle while that lives (2 hours, the latest conversation only), else in a new session seeded with its turns.
struct ResumePlan: Sendable {
    /// The transcript file; this run's turns are added to it.
    let transcript: String
    let id: String
    let records: [TranscriptRecord]
    /// What could not be read from the file (a torn last line, garbage).
    let problems: [TranscriptProblem]
    /// The saved handle and its age in seconds, when it belongs to this conversation and is still usable.
    let handle: (secret: Secret, age: Double)?
    /// Why the handle is not used, when it is not (for the line on screen).
    let noHandle: String?
    /// The turns a fresh session is seeded with (also the fallback when the service refuses the handle).
    let seed: ResumeSeed
    /// Wall-clock seconds since 1970 of the conversation's last record.
    let lastSaved: Double?
    /// The model, voice and system instruction the transcript records (nil where it records none).
    let model: String?, voice: String?, system: String?

    /// What the command line said, so the transcript's choices do not override the user's.
    struct Chosen {
        var model = false, voice = false, system = false
    }

    /// Resolves `id` (nil or `latest`: the newest) in `directory`, reads it, and makes `config` continue it:
    /// its model, voice and system instruction unless `chosen` on the command line.
    static func make(
        _ id: String?, directory: String, handles: ResumeStore, config: inout Config, chosen: Chosen,
        now: Double = TimeSource.wallSeconds()
    ) throws(ParleyError) -> ResumePlan {
        let path = try ConversationID.resolve(id, in: directory)
        let reading = try TranscriptReader.read(path)
        let sessions = reading.records.compactMap(\.session)
        let model = sessions.last?.model
        let voice = reading.records.reversed().lazy.compactMap { r -> String? in
            switch r.entry {
            case .session(let s): s.voice
            case .voice(let name, _): name
            default: nil
            }
        }.first
        let system = sessions.last(where: { $0.system != nil })?.system
        if !chosen.model, let model, Self.canContinue(on: model, config) { config.model = model }
        if !chosen.voice, let voice, let v = Voice.named(voice) { config.voice = v.name }
        if !chosen.system, let system { config.systemInstruction = system }

        let lastSaved = reading.records.last(where: { $0.time != nil })?.time.flatMap(ConversationSummary.seconds)
        var handle: (Secret, Double)?
        let noHandle: String?
        switch handles.handle(for: path, model: config.model, now: now) {
        case .success(let (saved, age)):
            handle = (saved.handle, age)
            noHandle = nil
        case .failure(let why):
            noHandle = why.description
        }
        return ResumePlan(
            transcript: path, id: ConversationID.id(of: path), records: reading.records, problems: reading.problems,
            handle: handle, noHandle: noHandle, seed: ResumeSeed(reading.records, model: config.model),
            lastSaved: lastSaved, model: model, voice: voice, system: system)
    }

    /// Whether a conversation saved with `model` can go on with it: a model that was shut down, or one that
    /// refuses this configuration's options, leaves the configured model in place.
    private static func canContinue(on model: String, _ config: Config) -> Bool {
        let bare = model.hasPrefix("models/") ? String(model.dropFirst(7)) : model
        guard !LiveModel.shutDown.contains(bare) else { return false }
        return (try? LiveModel.traits(of: model).check(config.modelOptions)) != nil
    }

    /// The command line with a bare `--resume` (last, or before another option) made `--resume=latest`, the way
    /// `--camera` stands without a device.
    static func normalized(_ arguments: [String]) -> [String] {
        arguments.indices.map { i in
            arguments[i] == "--resume" && (i + 1 == arguments.count || arguments[i + 1].hasPrefix("-")) ? "--resume=latest" : arguments[i]
        }
    }

    /// "40 min", "3 h", "3 days": a span in words (a file edited by hand may say anything: Int() traps beyond
    /// Int.max, so the largest spans are words).
    static func span(_ seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 3_600 { return "\(Int(s / 60)) min" }
        if s < 2 * 86_400 { return "\(Int(s / 3_600)) h" }
        if s < 366 * 86_400 { return "\(Int(s / 86_400)) days" }
        return "more than a year"
    }

    static func ago(_ seconds: Double) -> String { span(seconds) + " ago" }

    /// The lines the screen shows after the earlier turns: how the conversation goes on.
    func continuation(now: Double) -> [String] {
        if let handle { return ["resuming the conversation from \(Self.ago(handle.age))"] }
        let when = lastSaved.map { " (last saved \(Self.ago(now - $0)))" } ?? ""
        var lines = ["continuing in a new session seeded with its \(seed.turns.count) turns\(when)"]
        if let noHandle { lines.append(noHandle) }
        if seed.leftOut > 0 {
            lines.append("the \(seed.leftOut) earliest turns were left out of the seed: \(seed.limitDescription)")
        }
        return lines
    }
}

/// The said turns a new session is seeded with when a saved conversation goes on without its handle: the
/// newest that fit half of the model's input window (the other half is the new conversation's) and the
/// session's `ConversationLog`, in order; how many earlier ones did not fit.
struct ResumeSeed: Equatable, Sendable {
    var turns: [Content]
    var leftOut: Int
    /// Estimated tokens the seed may take, and characters.
    let tokenBudget: Int
    let characterBudget: Int

    init(_ records: [TranscriptRecord], model: String, characterBudget: Int = ConversationLog().limit) {
        tokenBudget = LiveModel.traits(of: model).inputTokenLimit / 2
        self.characterBudget = characterBudget
        var kept: [Content] = []
        var (tokens, characters, said) = (0, 0, 0)
        var full = false
        for turn in Self.turnsAsAsked(records).reversed() {
            guard !turn.text.isEmpty else { continue }
            let text = turn.text
            said += 1
            if full { continue }
            let t = TurnSize.estimatedTokens(bytes: text.utf8.count), c = text.count
            if tokens + t > tokenBudget || characters + c > characterBudget {
                full = true
                continue
            }
            tokens += t
            characters += c
            kept.append(Content(role: turn.speaker.rawValue, text: text))
        }
        turns = kept.reversed()
        leftOut = said - kept.count
    }

    /// Both sides' lines in the order the model had them. The transcript keeps a typed question where it was
    /// typed, but one that waited in the session's queue (its line, then a `queued` record with its text) went
    /// out at its `sent` record, after the reply it waited for: there it goes, so the seed does not show it
    /// answered by that earlier reply. Ones never sent come last, in the order they waited.
    static func turnsAsAsked(_ records: [TranscriptRecord]) -> [TranscriptRecord.Said] {
        var turns: [TranscriptRecord.Said?] = []
        var waiting: [Int: Int] = [:]  // a queued turn's id → its line's place in `turns`
        for r in records {
            switch r.entry {
            case .said(let said) where r.turn != nil:
                turns.append(said)
            case .queued(let id, let text):
                if let i = turns.lastIndex(where: { $0?.speaker == .user && $0?.text == text }) { waiting[id] = i }
            case .sent(let id):
                if let i = waiting.removeValue(forKey: id), let said = turns[i] {
                    turns[i] = nil
                    turns.append(said)
                }
            default:
                break
            }
        }
        // Still waiting when the conversation ended: the model never had them; they are the last questions.
        let unsent = waiting.sorted { $0.key < $1.key }.compactMap { turns[$0.value] }
        for (_, i) in waiting { turns[i] = nil }
        return turns.compactMap { $0 } + unsent
    }

    var limitDescription: String {
        "the seed holds the newest that fit in about \(tokenBudget) tokens (half the model's window) and \(characterBudget) characters"
    }
}
