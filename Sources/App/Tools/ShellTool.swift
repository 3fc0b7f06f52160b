import Foundation
import ParleyTime
import ParleySpawn
import Live
import ParleyLock
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `run_shell_command`: runs `/bin/sh -c COMMAND` in its own process group, only after the user said yes, with
/// a time limit and capped output. Cancelling the call (the server's `toolCallCancellation`) kills the group.
struct ShellTool: Sendable {
    var timeLimit: Double = 30
    var maxOutputBytes = 16 * 1024
    /// What the command sees: parley's environment without secrets (see `ToolEnvironment`).
    var environment: [String: String] = ToolEnvironment.clean()
    /// The clock `timeLimit` is measured on (the app's).
    var time: TimeSource = .monotonic

    struct Result: Sendable, Equatable {
        var output: String
        var exitCode: Int32?
        var timedOut = false
        var truncated = false
        var cancelled = false
    }

    /// The exact command text a call asks to run (what the user confirms).
    static func command(of args: JSONValue) -> String? { args["command"]?.stringValue }

    func run(_ command: String) async -> Result {
        let cancel = Atomic<Bool>(false)
        let box = ResultBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result, Never>) in
                Thread.detachNewThread {
                    c.resume(returning: execute(command, cancelled: { cancel.load(ordering: .relaxed) }, started: box.setPID))
                }
            }
        } onCancel: {
            cancel.store(true, ordering: .relaxed)
            box.killGroup()
        }
    }

    /// The blocking part, on its own thread.
    private func execute(_ command: String, cancelled: () -> Bool, started: (pid_t) -> Void) -> Result {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return Result(output: "cannot create a pipe", exitCode: nil) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var attributes = posix_spawnattr_t()
        // Its own process group, so it can be killed whole; clean signals (see SpawnAttributes).
        SpawnAttributes.clean(&attributes, flags: POSIX_SPAWN_SETPGROUP)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        let words: [String] = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Every process the command starts inherits this mark, even one that leaves the group with setsid.
        let mark = "PARLEY_TOOL_CALL=\(getpid())-\(UInt64.random(in: 1...UInt64.max))"
        var envp: [UnsafeMutablePointer<CChar>?] = (ToolEnvironment.entries(environment) + [mark]).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            return Result(output: "cannot start /bin/sh: \(String(cString: strerror(rc)))", exitCode: nil)
        }
        started(pid)
        var result = Result(output: "", exitCode: nil)
        var output = Data()
        let deadline = time.now() + timeLimit
        var buffer = [UInt8](repeating: 0, count: 4096)
        var open = true
        while open {
            if cancelled() {
                result.cancelled = true
                break
            }
            if time.now() >= deadline {
                result.timedOut = true
                break
            }
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { open = false; break }
            if output.count < maxOutputBytes { output.append(contentsOf: buffer[0..<min(n, maxOutputBytes - output.count)]) }
            if output.count >= maxOutputBytes { result.truncated = true }
        }
        close(fds[0])
        // The cancel handler's SIGTERM may have ended the command before the loop saw the flag.
        if cancelled() { result.cancelled = true }
        if result.timedOut || result.cancelled {
            kill(-pid, SIGTERM)
            Self.killMarked(mark, SIGTERM)
            usleep(100_000)
            kill(-pid, SIGKILL)
            Self.killMarked(mark, SIGKILL)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if !result.timedOut && !result.cancelled {
            result.exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
        result.output = String(decoding: output, as: UTF8.self)
        return result
    }

    /// Sends `signal` to every process whose environment holds `mark` (a command's descendants, wherever
    /// setsid or an exiting parent moved them).
    static func killMarked(_ mark: String, _ signal: Int32) {
        let me = getpid()
        let needle = Array(mark.utf8) + [0]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), pid != me,
                let env = FileManager.default.contents(atPath: "/proc/\(name)/environ") else { continue }
            let bytes = [UInt8](env)
            var at = 0
            while at < bytes.count {
                let end = bytes[at...].firstIndex(of: 0) ?? bytes.count
                if end - at + 1 == needle.count, bytes[at..<end].elementsEqual(needle.dropLast()) {
                    kill(pid, signal)
                    break
                }
                at = end + 1
            }
        }
    }

    /// The process group to kill when the call is cancelled, once it exists.
    final class ResultBox: Sendable {
        private let pid = Locked<pid_t>(0)
        func setPID(_ p: pid_t) { pid.withLock { $0 = p } }
        func killGroup() {
            let p = pid.withLock { $0 }
            if p > 0 { kill(-p, SIGTERM) }
        }
    }
}

extension ShellTool.Result {
    /// The `response` for `toolResponse`.
    var response: JSONValue {
        var r: [String: JSONValue] = ["output": .string(output)]
        if let exitCode { r["exitCode"] = .number(Double(exitCode)) }
        if truncated { r["truncated"] = true }
        if timedOut { r["error"] = "the command ran out of time and was stopped" }
        if cancelled { r["error"] = "the command was cancelled" }
        return .object(r)
    }
}

extension ToolDefinition {
    static func shell(_ tool: ShellTool) -> ToolDefinition {
        var d = ToolDefinition(
            name: "run_shell_command",
            description: "Runs a shell command on the user's computer after the user confirms it. Returns its output (at most \(tool.maxOutputBytes / 1024) KB) and exit code; stopped after \(Int(tool.timeLimit)) s.",
            parameters: ["type": "object", "properties": ["command": ["type": "string", "description": "The exact /bin/sh command line."]], "required": ["command"]]
        ) { args in
            guard let command = ShellTool.command(of: args) else { return ["error": "missing the string argument command"] }
            return await tool.run(command).response
        }
        d.confirmation = { args in ShellTool.command(of: args) ?? "(no command)" }
        return d
    }
}
