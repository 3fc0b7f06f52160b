import Foundation
import Logging
import MCP
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// MCP over a child's stdio, one JSON message per line, read on its own thread in linear time. (The SDK's
/// `StdioTransport` searches the whole pending buffer for a newline after every 4 KB read, so a large result
/// costs time in the square of its size.) A message longer than `maxMessageBytes` is dropped whole; its call
/// then ends at its time limit.
actor LineTransport: Transport {
    nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let maxMessageBytes: Int
    private let stopped = StopFlag()
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(input: Int32, output: Int32, maxMessageBytes: Int = 64 << 20, logger: Logger) {
        self.input = input
        self.output = output
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
        (messages, continuation) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {
        let (fd, limit, stop, sink, log) = (input, maxMessageBytes, stopped, continuation, logger)
        Thread.detachNewThread { Self.readLines(fd: fd, limit: limit, stopped: stop, sink: sink, logger: log) }
    }

    func disconnect() async {
        stopped.stop()
        continuation.finish(throwing: Self.closed)
    }

    func send(_ data: Data) async throws {
        var bytes = [UInt8](data)
        bytes.append(0x0A)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw MCPError.transportError(Errno(rawValue: errno))
            }
            off += n
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> { messages }

    /// Splits what `fd` delivers into lines; each byte is looked at once.
    static func readLines(
        fd: Int32, limit: Int, stopped: StopFlag, sink: AsyncThrowingStream<Data, any Error>.Continuation, logger: Logger
    ) {
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
                    sink.yield(Data(pending[start..<nl]))
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
        sink.finish(throwing: closed)
    }

    /// How the message stream ends. Never a plain finish: the SDK client's receive loop restarts a finished
    /// stream forever, spinning a CPU, and breaks out only on an error.
    static let closed = MCPError.transportError(Errno(rawValue: EPIPE))
}

/// Tells a reading thread to stop.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func stop() { flag.store(true, ordering: .relaxed) }
    var isStopped: Bool { flag.load(ordering: .relaxed) }
}
