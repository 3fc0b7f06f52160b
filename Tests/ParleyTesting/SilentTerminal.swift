import Foundation
import ParleySpawn
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal that never answers anything a program asks it (no device attributes, no kitty
/// keyboard reply), like a dumb serial console. The program runs with the pty as its stdin, stdout and
/// stderr; what it writes is read and kept, so it never blocks.
public final class SilentTerminal {
    public let pid: pid_t
    private let master: Int32
    public private(set) var output: [UInt8] = []
    private var status: Int32?

    public init(_ args: [String], env: [String: String], rows: UInt16 = 24, columns: UInt16 = 80) throws {
        // posix_openpt/grantpt/unlockpt/ptsname are not exported to Swift: their Linux ioctls are.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
            ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
        else { throw XCTSkip("no pseudo-terminals here") }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slavePath = "/dev/pts/\(number)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, slavePath, O_RDWR, 0) }
        posix_spawn_file_actions_addclose(&actions, master)
        var attributes = posix_spawnattr_t()
        SpawnAttributes.clean(&attributes, flags: 0x80 /* POSIX_SPAWN_SETSID */)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = withSanitizerOptions(env).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, args[0], &actions, &attributes, &argv, &envp)
        guard rc == 0 else { throw NSError(domain: "spawn", code: Int(rc)) }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var st: Int32 = 0
            waitpid(pid, &st, 0)
        }
        close(master)
    }

    /// Reads what the program writes for `seconds`.
    public func read(for seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        var buf = [UInt8](repeating: 0, count: 8192)
        while Date() < end {
            var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, end.timeIntervalSinceNow * 1000))
            guard poll(&p, 1, left) > 0 else { continue }
            let n = Glibc.read(master, &buf, buf.count)
            if n <= 0 { return }
            output += buf[0..<n]
        }
    }

    /// Types bytes, as a user at the keyboard would.
    public func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the program to exit (reading its output meanwhile); returns its exit status, or nil.
    public func waitForExit(timeout: Double) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            var st: Int32 = 0
            if waitpid(pid, &st, WNOHANG) == pid {
                status = (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f)
                return status
            }
            read(for: 0.05)
        }
        return nil
    }
}
