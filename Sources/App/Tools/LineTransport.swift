import Foundation
import Logging
import ParleyLock
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One JSON message per line over a child's stdio, read on its own thread in linear time (a naive reader that
/// searches the whole pending buffer for a newline after every read costs time in the square of a large
/// result's size). A message longer than `maxMessageBytes` is dropped whole; its call then ends at its time
/// limit.
final class LineTransport: Sendable {
    let logger: Logger
    private let input: Int32
    private let output: Int32
    private let maxMessageBytes: Int
    private let stopped = StopFlag()
    /// Held while a message is written, so two messages never interleave on the pipe (a write over
    /// `PIPE_BUF` bytes is not atomic).
    private let writing = Locked(())

    struct SendFailed: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { "cannot write to the server: \(String(cString: strerror(errno)))" }
    }

    init(input: Int32, output: Int32, maxMessageBytes: Int = 64 << 20, logger: Logger) {
        self.input = input
        self.output = output
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    /// Starts the reading thread: `onLine` gets each line (on that thread, in order), then `onEnd` once when the
    /// server closes its output or `stop()` is called.
    func start(onLine: @escaping @Sendable (Data) -> Void, onEnd: @escaping @Sendable () -> Void) {
        let (fd, limit, stop, log) = (input, maxMessageBytes, stopped, logger)
        Thread.detachNewThread {
            Self.readLines(fd: fd, limit: limit, stopped: stop, logger: log, onLine: onLine)
            onEnd()
        }
    }

    /// Ends the reading thread (within its 200 ms poll).
    func stop() { stopped.stop() }

    /// Writes `message` and a newline. Blocks while the pipe is full.
    func send(_ message: Data) throws {
        var bytes = [UInt8](message)
        bytes.append(0x0A)
        try writing.withLock { _ in
            var off = 0
            while off < bytes.count {
                let n = bytes[off...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw SendFailed(errno: errno)
                }
                off += n
            }
        }
    }

    /// Splits what `fd` delivers into lines, until end of file or `stopped`; each byte is looked at once.
    static func readLines(fd: Int32, limit: Int, stopped: StopFlag, logger: Logger, onLine: (Data) -> Void) {
        var pending = [UInt8]()
        var scanned = 0
        var discarding = false
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopped.isStopped {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 200)
            if ready == 0 { continue }
            if ready < 0 { if errno == EINTR { continue }; break }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; break }
            if n == 0 { break }
            pending.append(contentsOf: chunk[0..<n])
            var start = 0
            while let nl = pending[scanned...].firstIndex(of: 0x0A) {
                if discarding {
                    discarding = false
                } else if nl > start {
                    onLine(Data(pending[start..<nl]))
                }
                start = nl + 1
                scanned = start
            }
            scanned = pending.count
            if start > 0 {
                pending.removeFirst(start)
                scanned -= start
            }
            if pending.count > limit {
                logger.warning("an MCP message over \(limit) bytes was dropped")
                discarding = true
                pending.removeAll(keepingCapacity: true)
                scanned = 0
            }
        }
    }
}

/// Tells a reading thread to stop.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func stop() { flag.store(true, ordering: .relaxed) }
    var isStopped: Bool { flag.load(ordering: .relaxed) }
}
