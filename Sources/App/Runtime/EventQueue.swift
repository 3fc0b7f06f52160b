import Conversation
import Foundation
import ParleyLock

#if canImport(Glibc)
import Glibc
#endif

/// The hand-off from other threads to the main loop: a locked queue plus a self-pipe the loop polls.
final class EventQueue: Sendable {
    private let queue = Locked<[AppEvent]>([])
    /// Poll this for readability.
    let fd: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for f in fds {
                _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK)
                _ = fcntl(f, F_SETFD, FD_CLOEXEC)
            }
        }
        fd = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if fd >= 0 { close(fd) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Queues an event and wakes the loop. Any thread; never blocks.
    func post(_ event: AppEvent) {
        queue.withLock { $0.append(event) }
        wake()
    }

    /// Wakes the loop; a full pipe already means a wake-up is pending.
    func wake() {
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)
    }

    /// Everything queued, oldest first; also clears the wake-up. `pipeReadable`: whether the loop's poll saw
    /// `fd` readable; when it did not, the pipe is not read (an event posted since is still taken, and its byte
    /// wakes the next poll at once).
    func drain(pipeReadable: Bool = true) -> [AppEvent] {
        if pipeReadable {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buf in
                while read(fd, buf.baseAddress, buf.count) > 0 {}
            }
        }
        return queue.withLock { q in
            defer { q.removeAll(keepingCapacity: true) }
            return q
        }
    }
}
