import ArgumentParser
import Foundation
import Live
import TUI
import Conversation

/// `parley export`: a saved session as Markdown.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a saved conversation as Markdown.",
        discussion: "Without an argument, the latest conversation. Conversations are saved under $XDG_DATA_HOME/parley/.")

    @Argument(help: ArgumentHelp("A conversation's ID or a unique prefix of it (see `parley history`), or a session file.", valueName: "id"))
    var session: String?

    @Flag(help: "List the saved sessions instead.")
    var list = false

    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (for transcript_dir).", valueName: "file"))
    var configFile: String?

    func run() throws {
        let paths = Paths()
        let config = try report { try Config.load(path: configFile ?? paths.configFile, required: configFile != nil) }
        let dir = config.transcriptDir ?? paths.transcripts
        let sessions = TranscriptStore.sessions(in: dir)
        if list {
            for s in sessions { print((s as NSString).lastPathComponent) }
            return
        }
        let path: String
        var isDirectory: ObjCBool = false
        if let session, FileManager.default.fileExists(atPath: session, isDirectory: &isDirectory), !isDirectory.boolValue {
            path = session
        } else {
            path = try report { try ConversationID.resolve(session, in: dir) }
        }
        let reading = try report { try TranscriptReader.read(path) }
        let records = reading.records
        if let unread = reading.unread { StandardStream.write("parley: \(path): \(unread)\n", to: 2) }
        let title = "parley — " + ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        StandardStream.write(TranscriptStore.markdown(records, title: title, prices: config.priceTable), to: 1)
    }
}

extension TranscriptStore {
    /// The usage section of an export: one row a turn (tokens in by modality, cached, out, thoughts, cost, the
    /// running total) and the total, priced with the table for the session's model (Vertex's prices when the
    /// service sent a `trafficType`, which only Vertex does). Empty when the session has no usage.
    static func usageMarkdown(_ records: [TranscriptRecord], prices table: PriceTable) -> String {
        let model = records.lazy.compactMap(\.session).first?.model ?? LiveModel.defaultID
        let vertex = records.contains { if case .usage(let u) = $0.entry { u.trafficType != nil } else { false } }
        var usage = UsageState(model: model, backend: vertex ? .vertex : .aiStudio, table: table, slidingWindow: false, budget: nil)
        for r in records {
            switch r.entry {
            case .usageCarried(let c): usage.carry(c)
            case .usage(let u): usage.record(u)
            default: break
            }
        }
        guard usage.ledger.turnCount > 0 else { return "" }
        func n(_ v: Int?) -> String { v.map(HeaderView.grouped) ?? "—" }
        func split(_ c: ModalityCounts?) -> String {
            guard let c else { return "—" }
            return [UsageModality.text, .audio, .imageVideo].map { n(c[$0]) }.joined(separator: " / ")
        }
        var out = "---\n\n## Usage\n\n"
        out += "| turn | in (billed) | in text / audio / image·video | cached | out | thoughts | tokens | cost | total cost |\n"
        out += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        if usage.ledger.carried.turns > 0 {
            let c = usage.ledger.carried
            out += "| 1–\(c.turns) (earlier) | | | | | | \(n(c.tokens)) | \(Cost.dollars(c.usd)) | \(Cost.dollars(c.usd)) |\n"
        }
        for (i, t) in usage.ledger.turns.enumerated() {
            let cost = usage.costs[i]
            out += "| \(usage.ledger.carried.turns + i + 1) | \(n(t.billedInput)) | \(split(t.promptByModality)) | \(n(t.cached)) | \(n(t.response)) | \(n(t.thoughts)) | \(n(t.total)) | \(cost.isKnown ? Cost.dollars(cost.usd) : "?") | \(UsageState.money(usage.cumulative(through: i))) |\n"
        }
        let sum = usage.ledger.sum
        out += "| **total** | \(n(sum.billedInput)) | \(split(sum.promptByModality)) | \(n(sum.cached)) | \(n(sum.response)) | \(n(sum.thoughts)) | \(n(usage.ledger.tokens)) | | \(UsageState.money(usage.total)) |\n\n"
        out += "\(usage.summaryLine) — \(usage.prices.backend.title) list prices for \(usage.prices.model); \"in\" is the whole context, billed again each turn, less what was cached.\n"
        return out
    }
}
