import ArgumentParser
import Foundation

/// `parley history`: the saved conversations, a search through them, and one of them in full.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, search and show saved conversations.",
        discussion: """
            A conversation's ID is its transcript's file name without .jsonl, as the list prints it; any unique \
            prefix of it works too (with or without "session-"). Continue one with `parley --resume ID`; print one \
            as Markdown with `parley export ID`. Transcripts are saved under $XDG_DATA_HOME/parley/.
            """,
        subcommands: [HistoryList.self, HistorySearch.self, HistoryShow.self],
        defaultSubcommand: HistoryList.self)
}

/// Where the transcripts are: `transcript_dir` in the config, or the data directory.
struct TranscriptDirectoryOption: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (for transcript_dir).", valueName: "file"))
    var configFile: String?

    func directory() throws -> String {
        let paths = Paths()
        let config = try report { try Config.load(path: configFile ?? paths.configFile, required: configFile != nil) }
        return config.transcriptDir ?? paths.transcripts
    }
}

struct HistoryList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the saved conversations, oldest first: start, length, turns, model, voice, the first words.")

    @OptionGroup var where_: TranscriptDirectoryOption

    func run() throws {
        let summaries = HistoryIndex.summaries(in: try where_.directory())
        guard !summaries.isEmpty else {
            StandardStream.write("no saved conversations yet: talk with parley first\n", to: 2)
            return
        }
        StandardStream.write(HistoryPrinter.standard().list(summaries), to: 1)
    }
}

struct HistorySearch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find the lines said in any conversation (both sides, typed and spoken) that hold every word.",
        discussion: "Case is ignored. Each match is printed under its conversation's ID with its time and the line before it. Exits 1 when nothing matches.")

    @Argument(help: ArgumentHelp("The words to find.", valueName: "words"))
    var words: [String]

    @OptionGroup var where_: TranscriptDirectoryOption

    func validate() throws {
        guard words.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw ValidationError("give at least one word to search for")
        }
    }

    func run() throws {
        let search = TranscriptSearch(words)
        let found = search.search(directory: try where_.directory())
        guard !found.isEmpty else {
            StandardStream.write("nothing said matches \(HistoryPrinter.clean(words.joined(separator: " ")))\n", to: 2)
            throw ExitCode(1)
        }
        StandardStream.write(HistoryPrinter.standard().matches(found, words: search.words), to: 1)
    }
}

struct HistoryShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print one conversation (default: the latest).")

    @Argument(help: ArgumentHelp("Its ID, or a unique prefix of it (see `parley history`).", valueName: "id"))
    var id: String?

    @OptionGroup var where_: TranscriptDirectoryOption

    func run() throws {
        let path = try report { try ConversationID.resolve(id, in: try where_.directory()) }
        let reading = try report { try TranscriptReader.read(path) }
        StandardStream.write(HistoryPrinter.standard().conversation(ConversationID.id(of: path), reading.records), to: 1)
        if let unread = reading.unread { StandardStream.write("parley: \(path): \(unread)\n", to: 2) }
    }
}
