import ArgumentParser
import Foundation

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
        StandardStream.write(TranscriptStore.markdown(records, title: title), to: 1)
    }
}
