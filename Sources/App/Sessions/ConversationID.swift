import Foundation

/// A saved conversation's ID: its transcript's file name without `.jsonl`, as `parley history` prints it. Any
/// unique prefix of it names it too, with or without the `session-` every name starts with.
enum ConversationID {
    /// The transcript file `id` names in `directory`. `latest` (or nil) is the newest conversation.
    static func resolve(_ id: String?, in directory: String) throws(ParleyError) -> String {
        let files = TranscriptStore.sessions(in: directory)
        let ids = files.map(Self.id(of:))
        let id = id.map { $0.hasSuffix(".jsonl") ? String($0.dropLast(6)) : $0 }
        guard let id, id != "latest" else {
            guard let last = files.last else {
                throw .usage("no saved conversations in \(directory) yet: talk with parley first")
            }
            return last
        }
        if let exact = ids.firstIndex(of: id) { return files[exact] }
        let matches = ids.indices.filter { ids[$0].hasPrefix(id) || ids[$0].hasPrefix("session-" + id) }
        if matches.count == 1 { return files[matches[0]] }
        if matches.isEmpty {
            let recent = ids.suffix(5)
            throw .usage(
                "no conversation matches \"\(id)\""
                    + (recent.isEmpty ? " (none is saved yet)" : "; the latest are:\n  " + recent.reversed().joined(separator: "\n  "))
                    + "\n(parley history lists them all)")
        }
        let shown = matches.prefix(10).map { ids[$0] }
        throw .usage(
            "\"\(id)\" matches \(matches.count) conversations; give more of the ID:\n  " + shown.joined(separator: "\n  ")
                + (matches.count > shown.count ? "\n  … and \(matches.count - shown.count) more" : ""))
    }

    static func id(of path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }
}
