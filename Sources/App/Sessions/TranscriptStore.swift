import Foundation
import Live
import TUI

/// Saves a session as it goes, one JSON object per line, flushed after each record so a crash loses nothing.
final class TranscriptStore {
    let path: String
    private let handle: FileHandle
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
    private let clock: () -> Date

    /// Opens a new session file in `directory`, named after the local start time.
    init(directory: String, clock: @escaping () -> Date = Date.init) throws {
        try Paths.ensureDirectory(directory)
        self.clock = clock
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH-mm-ss"
        var name = "session-\(f.string(from: clock()))"
        var n = 1
        while FileManager.default.fileExists(atPath: "\(directory)/\(name).jsonl") {
            n += 1
            name = "session-\(f.string(from: clock()))-\(n)"
        }
        path = "\(directory)/\(name).jsonl"
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let h = FileHandle(forWritingAtPath: path)
        else { throw ParleyError.file(path: path, problem: "cannot create the transcript file") }
        handle = h
    }

    deinit { try? handle.close() }

    func append(_ record: TranscriptRecord) {
        var r = record
        r.time = ISO8601DateFormatter().string(from: clock())
        guard var data = try? encoder.encode(r) else { return }
        data.append(0x0A)
        try? handle.write(contentsOf: data)
    }

    /// The saved sessions in a directory, newest last.
    static func sessions(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("session-") && $0.hasSuffix(".jsonl") }.sorted().map { "\(directory)/\($0)" }
    }

    /// Reads a saved session; lines that do not parse are skipped (a crash may leave half a line).
    static func read(_ path: String) throws -> [TranscriptRecord] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ParleyError.file(path: path, problem: "cannot read the session file")
        }
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(TranscriptRecord.self, from: Data($0.utf8)) }
    }

    /// A saved session as Markdown.
    /// Every stored text passes `TerminalText` (a transcript holds what the server and tools sent).
    static func markdown(_ records: [TranscriptRecord], title: String) -> String {
        var out = "# \(TerminalText.sanitized(title, .singleLine))\n\n"
        for stored in records {
            let r = stored.sanitized
            switch r.kind {
            case "session":
                out += "_Model \(r.model ?? "?"), voice \(r.voice ?? "?"), started \(r.time ?? "?")._\n\n"
            case "user":
                out += "**You:** \(r.text ?? "")\n\n"
            case "model":
                out += "**Gemini:** \(r.text ?? "")\(r.interrupted == true ? " _(interrupted)_" : "")\n\n"
            case "system":
                out += "> \(r.text ?? "")\n\n"
            case "error":
                out += "> ⚠ \(r.text ?? "")\n\n"
            case "tool":
                var line = "- 🔧 `\(r.toolName ?? "?")(\(r.arguments ?? ""))` — \(r.state ?? "?")"
                if let d = r.duration { line += String(format: " in %.0f ms", d * 1000) }
                if let res = r.result { line += ": `\(res.replacingOccurrences(of: "`", with: "'"))`" }
                out += line + "\n\n"
            case "voice":
                out += "> voice changed to \(r.voice ?? "?")\n\n"
            default:
                break
            }
        }
        let total = records.compactMap { $0.usage?.totalTokenCount }.reduce(0, +)
        if total > 0 { out += "---\n\n\(total) tokens in all.\n" }
        return out
    }
}

extension TranscriptRecord {
    /// The record with every text field's control characters made visible (see `TerminalText`).
    var sanitized: TranscriptRecord {
        var r = self
        func clean(_ s: String?) -> String? { s.map { TerminalText.sanitized($0) } }
        r.text = clean(text)
        r.model = clean(model)
        r.voice = clean(voice)
        r.time = clean(time)
        r.toolName = clean(toolName)
        r.arguments = clean(arguments)
        r.result = clean(result)
        r.state = clean(state)
        return r
    }
}
