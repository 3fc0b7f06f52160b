import Foundation
import NIOCore
import ParleyLock
import XCTest

@testable import Live

/// The connection's tasks and timers run on the network thread, not in the concurrency pool.
final class NetworkExecutorTests: XCTestCase {
    func testATaskThatPrefersItRunsOnTheEventLoopAcrossSuspensions() async {
        let executor = NetworkExecutor.shared
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let task = Task(executorPreference: executor) { () -> [Bool] in
            var onLoop = [executor.loop.inEventLoop]
            for await _ in stream { onLoop.append(executor.loop.inEventLoop) }
            return onLoop
        }
        for k in 0..<3 { continuation.yield(k) }
        continuation.finish()
        let onLoop = await task.value
        XCTAssertEqual(onLoop, [true, true, true, true], "the start and every resumption after a suspension")
    }

    func testScheduleFiresOnTheLoopAndCancelCallsItOff() {
        let executor = NetworkExecutor.shared
        let fired = expectation(description: "fired")
        let onLoop = Locked(false)
        let start = Date()
        executor.schedule(after: 0.05) {
            onLoop.withLock { $0 = executor.loop.inEventLoop }
            fired.fulfill()
        }
        let cancelled = Locked(false)
        let never = executor.schedule(after: 0.05) { cancelled.withLock { $0 = true } }
        never.cancel()
        wait(for: [fired], timeout: 5)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.045, "not before its time")
        XCTAssertTrue(onLoop.withLock { $0 })
        let settle = expectation(description: "settle")
        executor.schedule(after: 0.1) { settle.fulfill() }
        wait(for: [settle], timeout: 5)
        XCTAssertFalse(cancelled.withLock { $0 }, "a cancelled timer never runs")
    }

    func testRepeatRunsAtOnceThenEveryIntervalUntilItSaysStop() {
        let executor = NetworkExecutor.shared
        let runs = Locked(0)
        let stopped = expectation(description: "stopped after three runs")
        executor.repeatEvery(0.02) {
            let n = runs.withLock { $0 += 1; return $0 }
            if n == 3 { stopped.fulfill() }
            return n < 3
        }
        wait(for: [stopped], timeout: 5)
        let settle = expectation(description: "settle")
        executor.schedule(after: 0.1) { settle.fulfill() }
        wait(for: [settle], timeout: 5)
        XCTAssertEqual(runs.withLock { $0 }, 3, "no run after it returned false")
    }
}
