import Foundation
import ParleySpawn
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command to completion and returns its status and output. Spawned directly with output to files:
/// Foundation's `Process` detects exit through a descriptor that a daemon (tmux's server) would inherit, and
/// with clean signals: a daemon spawned with a test thread's blocked signals could never shut down.
@discardableResult
/// `env` with the sanitizer settings of this process added: under `scripts/test.sh --sanitize` a child given an
/// environment of its own still writes its reports where the run counts them (and leak checking stays off)
/// instead of printing them and changing its exit status.
public func withSanitizerOptions(_ env: [String: String]) -> [String: String] {
    var out = env
    for key in ["ASAN_OPTIONS", "TSAN_OPTIONS"] where out[key] == nil {
        out[key] = ProcessInfo.processInfo.environment[key]
    }
    return out
}

public func shell(_ args: [String], env: [String: String]? = nil, timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
    let dir = FileManager.default.temporaryDirectory.path
    let tag = UUID().uuidString
    let outPath = "\(dir)/parley-sh-\(tag).out", errPath = "\(dir)/parley-sh-\(tag).err"
    defer {
        unlink(outPath)
        unlink(errPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let environment = withSanitizerOptions(env ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var attributes = posix_spawnattr_t()
    SpawnAttributes.clean(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var pid: pid_t = 0
    let rc = posix_spawnp(&pid, args[0], &actions, &attributes, &argv, &envp)
    guard rc == 0 else { throw NSError(domain: "spawn", code: Int(rc), userInfo: [NSLocalizedDescriptionKey: "cannot run \(args[0])"]) }
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(timeout)
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            break
        }
        usleep(10_000)
    }
    let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (code, out, err)
}

/// Finds built products (`parley`, `TUIDemo`) next to the test bundle, or in `PARLEY_BIN_DIR`.
public enum Binaries {
    public static var dir: String {
        if let d = ProcessInfo.processInfo.environment["PARLEY_BIN_DIR"], !d.isEmpty { return d }
        // The test runner lives in the build products directory, or inside a bundle there.
        var url = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("parley").path) { return url.path }
            url.deleteLastPathComponent()
        }
        return Bundle.main.bundleURL.path
    }

    public static var parley: String { dir + "/parley" }

    /// A built product by name, or nil when it was not built.
    public static func product(_ name: String) -> String? {
        let path = dir + "/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
