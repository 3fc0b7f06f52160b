import Foundation
import ParleyLock

/// Collects reply audio from the receive path.
final class ReplyAudio: Sendable {
    private let buffer = Locked(Data())
    func append(_ d: Data) { buffer.withLock { $0.append(d) } }
    var data: Data { buffer.withLock { $0 } }
}
