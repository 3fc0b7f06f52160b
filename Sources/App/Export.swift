import ArgumentParser
import Foundation

/// `parley export`: a saved session as Markdown.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a saved conversation as Markdown.",
        discussion: "Without an argument, the latest session. Sessions are saved under $XDG_DATA_HOME/parley/.")

    @Argument(help: ArgumentHelp("A session file, or its name (see --list).", valueName: "session"))
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
        if let session {
            let candidates = [session, "\(dir)/\(session)", "\(dir)/\(session).jsonl"]
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw report(.file(path: session, problem: "no such session (parley export --list shows them)"))
            }
            path = found
        } else {
            guard let latest = sessions.last else {
                throw report(.file(path: dir, problem: "no saved sessions yet: talk with parley first"))
            }
            path = latest
        }
        let records = try report { try TranscriptStore.read(path) }
        let title = "parley — " + ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        StandardStream.write(TranscriptStore.markdown(records, title: title), to: 1)
    }
}
