import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes to stdout/stderr without Foundation's trapping on a closed pipe: `parley ask --json | head` ends the
/// way any Unix filter does when its reader goes away.
enum StandardStream {
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE {
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                }
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }
}
