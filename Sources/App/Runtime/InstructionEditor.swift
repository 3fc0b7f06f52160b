import Conversation
import Foundation
import ParleySpawn

#if canImport(Glibc)
import Glibc
#endif

/// Opens the system instruction in the user's editor, as git does for a commit message: `$VISUAL`, else
/// `$EDITOR`, else `vi`, run through `/bin/sh` (so `EDITOR="code --wait"` works) on a private temporary file
/// (0600, removed after). The caller lends it the terminal.
enum InstructionEditor {
    /// The editor command the environment asks for.
    static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let v = environment[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty { return v }
        }
        return "vi"
    }

    /// Writes `text` to a private file, runs `run(command, path)` (the editor; returns its wait status or an
    /// error message) and reads the file back.
    static func edit(
        _ text: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        run: (String, String) -> Result<Int32, EditorFailure> = spawnAndWait
    ) -> InstructionEdit {
        let editor = command(environment: environment)
        let dir = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((dir + "/parley-instruction-XXXXXX.md").utf8CString)
        // mkstemps creates the file 0600 and opens it exclusively: nobody else can read or swap it.
        let fd = template.withUnsafeMutableBufferPointer { b in b.baseAddress.map { mkstemps($0, 3) } ?? -1 }
        guard fd >= 0 else { return .failed("cannot create a temporary file in \(dir) (\(String(cString: strerror(errno))))") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let original = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array((original.isEmpty ? "" : original + "\n").utf8)
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard wrote == bytes.count else { return .failed("cannot write the temporary file \(path)") }
        switch run(editor, path) {
        case .failure(let f):
            return .failed(f.message)
        case .success(let status):
            guard status == 0 else {
                let how = status & 0x7f == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(status & 0x7f)"
                return .failed("the editor (\(editor)) \(how)")
            }
        }
        guard let data = FileManager.default.contents(atPath: path), let edited = String(data: data, encoding: .utf8) else {
            return .failed("cannot read the edited file back (it was removed or is not UTF-8)")
        }
        let trimmed = edited.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed == original { return .unchanged }
        return trimmed.isEmpty ? .empty : .changed(trimmed)
    }

    struct EditorFailure: Error, Sendable, Equatable {
        let message: String
    }

    /// Runs `sh -c 'EDITOR "$@"' sh path` in parley's process group (the terminal's foreground) with clean
    /// signals, and waits for it.
    static func spawnAndWait(_ editor: String, _ path: String) -> Result<Int32, EditorFailure> {
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let words = ["/bin/sh", "-c", editor + " \"$@\"", editor, path]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", nil, &attributes, &argv, environ)
        guard rc == 0 else { return .failure(EditorFailure(message: "cannot start the editor (\(editor)): \(String(cString: strerror(rc)))")) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { return .failure(EditorFailure(message: "lost the editor (\(editor)): \(String(cString: strerror(errno)))")) }
        }
        // The shell says 127 when it cannot find the command.
        if status & 0x7f == 0, (status >> 8) & 0xff == 127 {
            return .failure(EditorFailure(message: "the editor \(editor) was not found (set VISUAL or EDITOR)"))
        }
        return .success(status)
    }
}
