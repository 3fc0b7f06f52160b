import Foundation

/// The input line's image attachments: `@path/to/file.png what is this?` attaches the file and asks the rest.
struct AttachmentInput: Sendable, Equatable {
    /// Image paths named with `@`, in order.
    var paths: [String]
    /// The question without the `@path` words.
    var text: String
    /// `@` words that look like image paths (a `/` in them, or an image extension) but name no file.
    var missing: [String] = []

    /// Extensions that make an `@` word an image path even when the file is not there (to say so).
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp", "gif", "bmp", "tif", "tiff"]

    /// Splits a typed line; words starting with `@` that name an existing file are attachments (an `@` word
    /// that is no file stays in the text, so "email me @ noon" is unharmed).
    static func parse(_ line: String, fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: ($0 as NSString).expandingTildeInPath) }) -> AttachmentInput {
        var paths: [String] = []
        var missing: [String] = []
        var words: [Substring] = []
        for word in line.split(separator: " ", omittingEmptySubsequences: true) {
            let path = String(word.dropFirst())
            if word.hasPrefix("@"), word.count > 1, fileExists(path) {
                paths.append(path)
            } else if word.hasPrefix("@"), path.contains("/") || imageExtensions.contains((path as NSString).pathExtension.lowercased()) {
                missing.append(path)
            } else {
                words.append(word)
            }
        }
        return AttachmentInput(paths: paths, text: words.joined(separator: " "), missing: missing)
    }

    /// Tab completion of the `@path` word under the cursor: the longest common completion of the entries that
    /// start with it (directories end with `/`), or nil when nothing matches.
    static func complete(_ word: String, list: (String) -> [String]? = { try? FileManager.default.contentsOfDirectory(atPath: $0) },
                         isDirectory: (String) -> Bool = { var d: ObjCBool = false; return FileManager.default.fileExists(atPath: $0, isDirectory: &d) && d.boolValue }) -> String? {
        guard word.hasPrefix("@") else { return nil }
        let typed = String(word.dropFirst())
        let expanded = (typed as NSString).expandingTildeInPath
        let slash = expanded.lastIndex(of: "/")
        let dir = slash.map { String(expanded[...$0]) } ?? "./"
        let stem = slash.map { String(expanded[expanded.index(after: $0)...]) } ?? expanded
        let matches = (list(dir) ?? []).filter { $0.hasPrefix(stem) && (stem.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted()
        guard var common = matches.first else { return nil }
        for m in matches.dropFirst() { while !m.hasPrefix(common) { common.removeLast() } }
        let typedDir = typed.lastIndex(of: "/").map { String(typed[...$0]) } ?? ""
        var result = "@" + typedDir + common
        if matches.count == 1, isDirectory(dir + common) { result += "/" }
        return result
    }
}
