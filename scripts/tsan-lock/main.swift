import Foundation
import Synchronization

// Two threads add 200,000 times each to one counter under a lock; the total is printed and must be 400,000.
//   mutex   Synchronization.Mutex
//   locked  ParleyLock's Locked (Sources/ParleyLock/Locked.swift, compiled in)
//   racy    Locked, and one thread also reads a guarded field without the lock (a real race TSan must report)
final class Box: @unchecked Sendable { var guarded = 0 }
let mode = CommandLine.arguments.dropFirst().first ?? "mutex"
let n = 200_000
let mutex = Mutex(0)
let locked = Locked(0)
let box = Box()
let done = DispatchGroup()
for i in 0..<2 {
    done.enter()
    Thread {
        for _ in 0..<n {
            if mode == "mutex" {
                mutex.withLock { $0 += 1 }
            } else {
                locked.withLock { $0 += 1; box.guarded += 1 }
                if mode == "racy" && i == 0 && box.guarded < 0 { print("never") }
            }
        }
        done.leave()
    }.start()
}
done.wait()
print("total \(mode == "mutex" ? mutex.withLock { $0 } : locked.withLock { $0 })")
