import Foundation
import ParleyLock
import ParleyTesting
import XCTest

@testable import Live

/// The connection's outbound queue: what the session sends, from any thread, reaches the writer in order,
/// and the writer's wait ends when the connection does.
final class OutboundQueueTests: XCTestCase {
    func testEverythingQueuedBeforeTheWriterAsksComesInOneBatchInOrder() async {
        let queue = OutboundQueue<Int>()
        for i in 0..<5 { queue.push(i) }
        var batch: [Int] = []
        let more = await queue.next(into: &batch)
        XCTAssertTrue(more)
        XCTAssertEqual(batch, [0, 1, 2, 3, 4])
    }

    func testAWaitingWriterIsWokenByAPushFromAnotherThread() async {
        let queue = OutboundQueue<String>()
        let writer = Task { () -> (Bool, [String]) in
            var batch: [String] = []
            let more = await queue.next(into: &batch)
            return (more, batch)
        }
        await eventually("the writer waits") { queue.writerWaits }
        Thread { queue.push("frame") }.start()
        let (more, batch) = await writer.value
        XCTAssertTrue(more)
        XCTAssertEqual(batch, ["frame"])
    }

    func testManyThreadsPushingLoseNothingAndKeepEachThreadsOrder() async {
        let queue = OutboundQueue<(thread: Int, n: Int)>()
        let threads = 4, each = 2_000
        let consumer = Task {
            var seen: [[Int]] = Array(repeating: [], count: threads)
            var batch: [(thread: Int, n: Int)] = []
            while await queue.next(into: &batch) {
                for item in batch { seen[item.thread].append(item.n) }
                batch.removeAll(keepingCapacity: true)
            }
            return seen
        }
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for n in 0..<each { queue.push((t, n)) }
        }
        queue.finish()
        let seen = await consumer.value
        for t in 0..<threads { XCTAssertEqual(seen[t], Array(0..<each), "thread \(t)") }
    }

    func testFinishingDeliversWhatIsQueuedThenEndsAndDropsLaterPushes() async {
        let queue = OutboundQueue<Int>()
        queue.push(1)
        queue.finish()
        queue.push(2)
        var batch: [Int] = []
        let first = await queue.next(into: &batch)
        XCTAssertTrue(first)
        XCTAssertEqual(batch, [1])
        batch.removeAll()
        let second = await queue.next(into: &batch)
        XCTAssertFalse(second)
        XCTAssertEqual(batch, [])
    }

    func testFinishingEndsAWriterThatIsWaiting() async {
        let queue = OutboundQueue<Int>()
        let writer = Task { () -> Bool in
            var batch: [Int] = []
            return await queue.next(into: &batch)
        }
        await eventually("the writer waits") { queue.writerWaits }
        queue.finish()
        let more = await writer.value
        XCTAssertFalse(more)
    }

    /// How the transport's writer is cancelled when the connection's reading side ends or fails: the task
    /// group cancels it, and the cancellation handler finishes the queue.
    func testCancellingTheWriterUnderItsHandlerEndsItsWait() async {
        let queue = OutboundQueue<Int>()
        let writes = Locked(0)
        let writer = Task {
            await withTaskCancellationHandler {
                var batch: [Int] = []
                while await queue.next(into: &batch) {
                    writes.withLock { $0 += batch.count }
                    batch.removeAll(keepingCapacity: true)
                }
            } onCancel: {
                queue.finish()
            }
        }
        queue.push(7)
        await eventually("the writer took 7 and waits again") { writes.withLock { $0 } == 1 && queue.writerWaits }
        writer.cancel()
        await writer.value
        XCTAssertEqual(writes.withLock { $0 }, 1)
        queue.push(8)  // after the end: dropped, nothing waits
    }
}
