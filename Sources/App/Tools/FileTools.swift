import Foundation
import Live

/// `read_file` and `list_directory`: only inside directories the user allowed in config, after resolving
/// symlinks and `..`, so the model cannot read what the user did not offer.
struct FileTools: Sendable {
    /// Canonical allowed roots.
    let roots: [String]
    /// The most `read_file` returns.
    var maxBytes = 64 * 1024
    /// The most entries `list_directory` returns.
    var maxEntries = 500

    init(allowed: [String], home: String = NSHomeDirectory()) {
        roots = allowed.map { path in
            let expanded = path.hasPrefix("~/") ? home + path.dropFirst(1) : path
            return URL(fileURLWithPath: expanded).standardizedFileURL.resolvingSymlinksInPath().path
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case notAllowed(String, roots: [String])
        case missing(String)
        case notAFile(String)
        case notADirectory(String)
        case unreadable(String)

        var description: String {
            switch self {
            case .notAllowed(let p, let roots):
                roots.isEmpty
                    ? "\(p) is not readable: the user has allowed no directories (tools.allowed_directories in config.toml)"
                    : "\(p) is outside the directories the user allowed (\(roots.joined(separator: ", ")))"
            case .missing(let p): "\(p) does not exist"
            case .notAFile(let p): "\(p) is not a regular file"
            case .notADirectory(let p): "\(p) is not a directory"
            case .unreadable(let p): "\(p) cannot be read"
            }
        }
    }

    /// The canonical path if it lies inside an allowed root.
    func resolve(_ path: String) throws -> String {
        let url = URL(fileURLWithPath: path, relativeTo: roots.first.map { URL(fileURLWithPath: $0, isDirectory: true) })
        let canonical = url.standardizedFileURL.resolvingSymlinksInPath().path
        guard roots.contains(where: { canonical == $0 || canonical.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            throw Failure.notAllowed(path, roots: roots)
        }
        return canonical
    }

    func readFile(_ args: JSONValue) throws -> JSONValue {
        guard let path = args["path"]?.stringValue else { return ["error": "missing the string argument path"] }
        let p = try resolve(path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else { throw Failure.missing(path) }
        guard !isDir.boolValue else { throw Failure.notAFile(path) }
        // A FIFO, device or socket could block the read forever (or never end): open without blocking and
        // accept only a regular file, checked on the open descriptor so a swap after the check cannot matter.
        let fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw Failure.unreadable(path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { close(fd); throw Failure.unreadable(path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { close(fd); throw Failure.notAFile(path) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        let truncated = data.count > maxBytes
        let text = String(decoding: data.prefix(maxBytes), as: UTF8.self)
        return ["path": .string(p), "content": .string(text), "truncated": .bool(truncated),
                "bytesReturned": .number(Double(min(data.count, maxBytes)))]
    }

    func listDirectory(_ args: JSONValue) throws -> JSONValue {
        let path = args["path"]?.stringValue ?? roots.first ?? "."
        let p = try resolve(path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else { throw Failure.missing(path) }
        guard isDir.boolValue else { throw Failure.notADirectory(path) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: p) else { throw Failure.unreadable(path) }
        let entries: [JSONValue] = names.sorted().prefix(maxEntries).map { name in
            var d: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: p + "/" + name, isDirectory: &d)
            return .string(d.boolValue ? name + "/" : name)
        }
        return ["path": .string(p), "entries": .array(entries), "truncated": .bool(names.count > maxEntries)]
    }
}

extension ToolDefinition {
    static func readFile(_ tools: FileTools) -> ToolDefinition {
        ToolDefinition(
            name: "read_file",
            description: "Reads a text file from a directory the user allowed. Returns at most \(tools.maxBytes / 1024) KB.",
            parameters: ["type": "object", "properties": ["path": ["type": "string", "description": "The file's path."]], "required": ["path"]]
        ) { args in try tools.readFile(args) }
    }

    static func listDirectory(_ tools: FileTools) -> ToolDefinition {
        ToolDefinition(
            name: "list_directory",
            description: "Lists the entries of a directory the user allowed (directories end with /).",
            parameters: ["type": "object", "properties": ["path": ["type": "string", "description": "The directory's path; the first allowed directory when omitted."]]]
        ) { args in try tools.listDirectory(args) }
    }
}
