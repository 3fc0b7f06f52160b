import Foundation
import Live

/// A transport that records what is sent and delivers frames synchronously, to time the session's own paths.
package final class FakeTransport: LiveTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var onEvent: (@Sendable (TransportEvent) -> Void)?
    private var sends: [UInt64] = []

    package init() {}

    package var sentCount: Int { lock.withLock { sends.count } }
    package func sendTime(after count: Int) -> UInt64? { lock.withLock { sends.count > count ? sends.last : nil } }

    package func open(url: String, headers: [(name: String, value: String)], onEvent: @escaping @Sendable (TransportEvent) -> Void) -> any LiveConnection {
        lock.withLock { self.onEvent = onEvent }
        DispatchQueue.global().async { onEvent(.opened) }
        return Connection(owner: self)
    }

    package func waitForConnection() async throws {
        while lock.withLock({ onEvent == nil }) { try await Task.sleep(for: .milliseconds(5)) }
    }

    package func deliver(_ text: String) { lock.withLock { onEvent }?(.frame(Data(text.utf8))) }

    package final class Connection: LiveConnection, @unchecked Sendable {
        let owner: FakeTransport
        init(owner: FakeTransport) { self.owner = owner }
        package func send(_ text: String) {
            let t = DispatchTime.now().uptimeNanoseconds
            owner.lock.withLock { owner.sends.append(t) }
        }
        package func close(code: Int, reason: String) {}
    }
}
