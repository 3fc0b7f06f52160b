import Foundation
import ParleyLock
import Synchronization
import XCTest

/// Numbers, not assertions: `Locked` against a bare `Mutex`, uncontended and with two threads taking turns.
/// Run with `PARLEY_BENCH=1 swift test -c release --filter LockBenchmarkTests`.
final class LockBenchmarkTests: XCTestCase {
    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("set PARLEY_BENCH=1 to run benchmarks") }
    }

    func nanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The best of `rounds` of `threads` threads each running `op` `n` times: nanoseconds per call.
    func best(rounds: Int, threads: Int, n: Int, _ op: @escaping @Sendable () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            let group = DispatchGroup()
            let t = nanos()
            for _ in 0..<threads {
                group.enter()
                Thread { for _ in 0..<n { op() }; group.leave() }.start()
            }
            group.wait()
            best = min(best, Double(nanos() - t) / Double(n * threads))
        }
        return best
    }

    func testLockedIsAsFastAsMutex() {
        let mutex = Mutex(0)
        let locked = Locked(0)
        for threads in [1, 2] {
            let m = best(rounds: 5, threads: threads, n: 2_000_000) { mutex.withLock { $0 &+= 1 } }
            let l = best(rounds: 5, threads: threads, n: 2_000_000) { locked.withLock { $0 &+= 1 } }
            print(String(format: "bench: withLock, %d thread(s): Mutex %.1f ns, Locked %.1f ns (best of 5)", threads, m, l))
        }
        XCTAssertEqual(mutex.withLock { $0 }, locked.withLock { $0 }, "both counted every call")
    }
}
