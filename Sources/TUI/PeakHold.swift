/// Peak hold for a meter: the highest level stays for `holdTime`, then falls at `decayPerSecond`.
public struct PeakHold: Sendable, Equatable {
    public var holdTime: Double
    public var decayPerSecond: Double
    public private(set) var peak: Double = -.infinity
    private var heldAt: Double = 0

    public init(holdTime: Double = 1.5, decayPerSecond: Double = 20) { self.holdTime = holdTime; self.decayPerSecond = decayPerSecond }

    /// Feeds a level at time `now` (seconds) and returns the peak to show.
    public mutating func update(level: Double, now: Double) -> Double {
        let age = now - heldAt
        let decayed = age > holdTime ? peak - (age - holdTime) * decayPerSecond : peak
        if level >= decayed { peak = level; heldAt = now } else if age > holdTime { peak = decayed; heldAt = now - holdTime }
        return peak
    }
}
