import Foundation

/// Where parley keeps its files, following the XDG base directories.
struct Paths: Sendable {
    var configHome: String
    var dataHome: String
    var stateHome: String

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func dir(_ key: String, _ fallback: String) -> String {
            if let v = environment[key], v.hasPrefix("/") { return v }
            return home + "/" + fallback
        }
        configHome = dir("XDG_CONFIG_HOME", ".config") + "/parley"
        dataHome = dir("XDG_DATA_HOME", ".local/share") + "/parley"
        stateHome = dir("XDG_STATE_HOME", ".local/state") + "/parley"
    }

    var configFile: String { configHome + "/config.toml" }
    var transcripts: String { dataHome }
    var resumeFile: String { stateHome + "/resume.json" }
    var stateFile: String { stateHome + "/state.json" }
    var defaultLogFile: String { stateHome + "/parley.log" }

    /// Creates a directory (and parents) with owner-only permissions if it is missing.
    static func ensureDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Why parley cannot write in `directory` (creating it if needed), or nil when it can.
    static func unwritable(_ directory: String) -> String? {
        do { try ensureDirectory(directory) } catch { return "cannot create \(directory) (\(TranscriptStore.reason(error)))" }
        return access(directory, W_OK) == 0 ? nil : "cannot write in \(directory) (\(String(cString: strerror(errno))))"
    }

    /// Writes a private (0600) file atomically, so a crash never leaves half of it.
    static func writePrivately(_ data: Data, to path: String) {
        try? ensureDirectory((path as NSString).deletingLastPathComponent)
        let tmp = path + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(tmp, path) != 0 { unlink(tmp) }
    }
}
