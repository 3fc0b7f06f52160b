/// Decides which captured chunks reach the consumer. A pure value.
///
/// A chunk is delivered if the gate was open at any moment while it was being captured, so closing the gate
/// mid-chunk still delivers that chunk (the end of the last word), marked as the one that ends the gate.
public struct CaptureGate: Sendable, Hashable {
    /// Whether the gate is open now.
    public private(set) var isOpen = false
    private var openDuringChunk = false

    /// A closed gate.
    public init() {}

    /// Opens or closes the gate.
    public mutating func set(open: Bool) {
        isOpen = open
        if open { openDuringChunk = true }
    }

    /// Called when a chunk has been captured: whether to deliver it, and whether it is the last one before
    /// the gate closed.
    public mutating func chunkCaptured() -> (deliver: Bool, endsGate: Bool) {
        let deliver = isOpen || openDuringChunk
        openDuringChunk = isOpen
        return (deliver, deliver && !isOpen)
    }
}
