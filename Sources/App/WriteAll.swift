#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, going on after a short write or an interrupted one (EINTR); false if a write
/// failed (`errno` says why). The transcript and the Opus recording's pipe write their records through it.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var done = 0
    while done < bytes.count {
        let n = Glibc.write(fd, base + done, bytes.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        done += n
    }
    return true
}
