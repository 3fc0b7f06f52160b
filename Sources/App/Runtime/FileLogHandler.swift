import Foundation
import ParleyTime
import Logging
import ParleyLock

/// swift-log to a file (never to the terminal while curses owns it). Lines are appended and flushed.
struct FileLogHandler: LogHandler {
    private let sink: Sink
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    let label: String

    final class Sink: Sendable {
        let handle: Locked<FileHandle?>
        init(path: String) throws {
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty { try Paths.ensureDirectory(dir) }
            // Created 0600, and an existing file is narrowed to 0600 too: a log names sessions and servers.
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw ParleyError.file(path: path, problem: "cannot open the log file for writing") }
            _ = fchmod(fd, 0o600)
            handle = Locked(FileHandle(fileDescriptor: fd, closeOnDealloc: true))
        }
        func write(_ line: String) {
            handle.withLock { try? $0?.write(contentsOf: Data(line.utf8)) }
        }
    }

    init(label: String, sink: Sink) {
        self.label = label
        self.sink = sink
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let meta = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Timestamp.iso8601UTC(secondsSince1970: TimeSource.wallSeconds())
        sink.write("\(time) \(event.level) \(label): \(event.message)\(meta)\n")
    }

    /// Sends every logger of the process to `path`; returns false (logging stays off) if it cannot be opened.
    @discardableResult
    static func bootstrap(path: String, level: Logger.Level = .info) -> Bool {
        guard let sink = try? Sink(path: path) else {
            LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
            return false
        }
        LoggingSystem.bootstrap { label in
            var h = FileLogHandler(label: label, sink: sink)
            h.logLevel = level
            return h
        }
        return true
    }
}
