import Conversation
import Foundation
import ParleyTime
#if canImport(Glibc)
import Glibc
#endif
import Live
import TUI

/// Saves a session as it goes, one JSON object per line, written with one `write(2)` per record so a crash
/// loses nothing. A write that fails (a full disk, a directory made read-only, a file size limit) is reported
/// once through `onFailure`, the half-written record is cut off so the file stays whole lines, and `failure`
/// keeps the reason so the program can exit non-zero.
final class TranscriptStore {
    let path: String
    private let fd: Int32
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
    private let clock: () -> Date
    /// Bytes of whole records in the file.
    private var written: off_t = 0
    /// The first write error, if any (then nothing more is written).
    private(set) var failure: String?
    /// Called once, with a message for the user, when saving fails.
    var onFailure: ((String) -> Void)?

    /// Opens a new session file in `directory`, named after the local start time.
    init(directory: String, clock: @escaping () -> Date = Date.init) throws {
        do {
            try Paths.ensureDirectory(directory)
        } catch {
            throw ParleyError.file(path: directory, problem: "cannot create the transcript directory (\(Self.reason(error)))")
        }
        self.clock = clock
        let stamp = Timestamp.localFileStamp(secondsSince1970: clock().timeIntervalSince1970)
        var name = "session-\(stamp)"
        var n = 1
        while FileManager.default.fileExists(atPath: "\(directory)/\(name).jsonl") {
            n += 1
            name = "session-\(stamp)-\(n)"
        }
        path = "\(directory)/\(name).jsonl"
        let opened = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw ParleyError.file(path: path, problem: "cannot create the transcript file (\(String(cString: strerror(errno))))")
        }
        fd = opened
        continuing = false
    }

    /// Whether this run adds to a conversation saved before (`--resume`) rather than starting a file.
    let continuing: Bool
    /// Bytes of a torn last line cut off when the file was opened to go on with it.
    private(set) var cutOff = 0

    /// Opens a saved conversation's file to add this run's records to it (`--resume`). A torn last line (a
    /// crash or a full disk mid-write) is cut off first, so the file stays whole lines and the first new record
    /// is not glued to it.
    init(continuing path: String, clock: @escaping () -> Date = Date.init) throws(ParleyError) {
        let opened = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard opened >= 0 else {
            throw .file(path: path, problem: "cannot add to the conversation (\(String(cString: strerror(errno))))")
        }
        let whole = Self.wholeLinesEnd(opened)
        var st = stat()
        let size = fstat(opened, &st) == 0 ? st.st_size : whole
        if whole < size, ftruncate(opened, whole) != 0 {
            let why = String(cString: strerror(errno))
            Glibc.close(opened)
            throw .file(path: path, problem: "cannot cut off the torn last line to add to the conversation (\(why))")
        }
        self.path = path
        self.clock = clock
        fd = opened
        written = whole
        continuing = true
        cutOff = Int(size - whole)
    }

    /// Where the file's whole lines end: its size when it ends with a newline (or is empty), else just after the
    /// last newline (0 when there is none). Reads back from the end in blocks.
    private static func wholeLinesEnd(_ fd: Int32) -> off_t {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0 else { return 0 }
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        var end = st.st_size
        while end > 0 {
            let start = max(0, end - off_t(block.count))
            let want = Int(end - start)
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, start) }
            guard n == want else { return st.st_size }  // unreadable: leave the file as it is
            if let i = block[0..<want].lastIndex(of: 0x0A) { return start + off_t(i) + 1 }
            end = start
        }
        return 0
    }

    deinit { close() }

    /// Flushes to disk and closes; a failure to flush counts as a write failure.
    func close() {
        guard fd >= 0, !closed else { return }
        closed = true
        if failure == nil, fsync(fd) != 0, errno != EINVAL { fail(errno) }
        Glibc.close(fd)
    }
    private var closed = false

    func append(_ record: TranscriptRecord) {
        guard failure == nil, !closed else { return }
        var r = record
        r.time = Timestamp.iso8601UTC(secondsSince1970: clock().timeIntervalSince1970)
        guard var data = try? encoder.encode(r) else { return }
        data.append(0x0A)
        let ok = data.withUnsafeBytes { writeAll(fd, $0) }
        if ok {
            written += off_t(data.count)
        } else {
            let e = errno
            // Keep the file whole lines: drop the part of this record that did get written.
            _ = ftruncate(fd, written)
            fail(e)
        }
    }

    private func fail(_ code: Int32) {
        guard failure == nil else { return }
        let why = code == ENOSPC ? "the disk is full" : code == EFBIG ? "the file is too large"
            : String(cString: strerror(code))
        let message = "the transcript can no longer be saved (\(why)): \(path) — later turns are not in it"
        failure = message
        onFailure?(message)
    }

    static func reason(_ error: any Error) -> String {
        if let e = error as? CocoaError, let u = e.userInfo[NSUnderlyingErrorKey] as? NSError, u.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(u.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// The saved sessions in a directory, newest last.
    static func sessions(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("session-") && $0.hasSuffix(".jsonl") }.sorted().map { "\(directory)/\($0)" }
    }

    /// Reads a saved session as far as it is whole (see `TranscriptReader`); what was not read is dropped.
    static func read(_ path: String) throws -> [TranscriptRecord] {
        try TranscriptReader.read(path).records
    }

    /// A saved session as Markdown.
    /// Every stored text passes `TerminalText` (a transcript holds what the server and tools sent).
    static func markdown(_ records: [TranscriptRecord], title: String, prices: PriceTable = .published) -> String {
        var out = "# \(TerminalText.sanitized(title, .singleLine))\n\n"
        for stored in records {
            let r = stored.sanitized
            let mark = r.recordingMark.map { " `\($0)`" } ?? ""
            switch r.entry {
            case .session(let session):
                out += session.continued
                    ? "_Continued with model \(session.model), voice \(session.voice), at \(r.time ?? "?")._\n\n"
                    : "_Model \(session.model), voice \(session.voice), started \(r.time ?? "?")._\n\n"
            case .said(let said):
                switch said.speaker {
                case .user: out += "**You:**\(mark) \(said.text)\n\n"
                case .model: out += "**Gemini:**\(mark) \(said.text)\(said.interrupted ? " _(interrupted)_" : "")\n\n"
                case .system: out += "> \(said.text)\n\n"
                case .error: out += "> ⚠ \(said.text)\n\n"
                }
            case .tool(let t):
                var line = "- 🔧 `\(t.name)(\(t.arguments))` — \(t.state.rawValue)"
                if let d = t.duration { line += String(format: " in %.0f ms", d * 1000) }
                if let res = t.result { line += ": `\(res.replacingOccurrences(of: "`", with: "'"))`" }
                out += line + "\n\n"
            case .voice(let name, _):
                out += "> voice changed to \(name)\n\n"
            case .context(let change):
                out += r.contextMarkdown(change)
            case .sent:
                out += "> the message queued while offline was sent at \(r.time ?? "?")\n\n"
            case .resent:
                out += "> no answer yet: the question was sent again on a new connection\n\n"
            case .usage, .usageCarried, .reconnect, .queued:
                break
            }
        }
        out += usageMarkdown(records, prices: prices)
        return out
    }
}

extension TranscriptRecord {
    /// The record with every text field's control characters made visible (see `TerminalText`).
    var sanitized: TranscriptRecord {
        func clean(_ s: String) -> String { TerminalText.sanitized(s) }
        var r = self
        r.time = time.map(clean)
        switch entry {
        case .session(var s):
            s.model = clean(s.model)
            s.voice = clean(s.voice)
            s.system = s.system.map(clean)
            r.entry = .session(s)
        case .said(var s):
            s.text = clean(s.text)
            r.entry = .said(s)
        case .tool(var t):
            t.name = clean(t.name)
            t.arguments = clean(t.arguments)
            t.result = t.result.map(clean)
            r.entry = .tool(t)
        case .voice(let name, let resumed):
            r.entry = .voice(name: clean(name), resumed: resumed)
        case .queued(let id, let text):
            r.entry = .queued(id: id, text: clean(text))
        case .resent(let question):
            r.entry = .resent(question: question.map(clean))
        case .context(var c):
            c.system = c.system.map(clean)
            c.voice = c.voice.map(clean)
            c.tools = c.tools?.map { TerminalText.sanitized($0, .singleLine) }
            r.entry = .context(c)
        case .usage, .usageCarried, .reconnect, .sent:
            break
        }
        return r
    }
}
