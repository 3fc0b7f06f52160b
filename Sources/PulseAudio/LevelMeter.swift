/// What a meter shows at one instant: the current RMS and peak, the held peak and whether it clipped recently.
public struct LevelReading: Sendable, Hashable {
    /// Current RMS in dBFS.
    public var rmsDBFS: Double
    /// Current peak in dBFS.
    public var peakDBFS: Double
    /// The held peak in dBFS: the highest recent peak, decaying after the hold time.
    public var heldPeakDBFS: Double
    /// Whether the signal clipped within the clip hold time.
    public var isClipping: Bool
    /// Clipped blocks since the meter was created.
    public var clipCount: Int

    /// A meter showing silence.
    public static let silence = LevelReading(rmsDBFS: AudioLevel.floorDBFS, peakDBFS: AudioLevel.floorDBFS,
                                             heldPeakDBFS: AudioLevel.floorDBFS, isClipping: false, clipCount: 0)

    /// Creates a reading from its parts.
    public init(rmsDBFS: Double, peakDBFS: Double, heldPeakDBFS: Double, isClipping: Bool, clipCount: Int) {
        self.rmsDBFS = rmsDBFS
        self.peakDBFS = peakDBFS
        self.heldPeakDBFS = heldPeakDBFS
        self.isClipping = isClipping
        self.clipCount = clipCount
    }

    /// Maps a dBFS value to 0...1 for drawing a bar: `floorDBFS` (default -60) is empty, 0 dBFS is full.
    public static func fraction(_ dBFS: Double, floorDBFS: Double = -60) -> Double {
        guard dBFS > floorDBFS else { return 0 }
        return min(1, (dBFS - floorDBFS) / -floorDBFS)
    }
}

/// A level meter with peak hold, peak decay and clip detection. A pure value: feed it levels with their
/// times (seconds, any monotonic origin) and read it at any time.
public struct LevelMeter: Sendable, Hashable {
    /// How long a peak is held before it starts to fall, in seconds.
    public var peakHold: Double
    /// How fast the held peak falls after the hold, in dB per second.
    public var peakDecayDBPerSecond: Double
    /// How long the clip indicator stays lit after a clipped block, in seconds.
    public var clipHold: Double
    /// How long after the last update the current level is taken as silence (the stream stopped), in seconds.
    public var staleAfter: Double

    private var current = AudioLevel.silence
    private var lastUpdate: Double = -.infinity
    private var heldPeak = AudioLevel.floorDBFS
    private var heldAt: Double = -.infinity
    private var lastClip: Double = -.infinity
    private var clips = 0

    /// Creates a meter; the defaults suit a terminal VU meter redrawn 20–30 times a second.
    public init(peakHold: Double = 1.5, peakDecayDBPerSecond: Double = 20, clipHold: Double = 2,
                staleAfter: Double = 0.25) {
        self.peakHold = peakHold
        self.peakDecayDBPerSecond = peakDecayDBPerSecond
        self.clipHold = clipHold
        self.staleAfter = staleAfter
    }

    /// Records the level of a block that was heard (captured or played) at `time`.
    public mutating func update(_ level: AudioLevel, at time: Double) {
        current = level
        lastUpdate = time
        if level.peakDBFS >= heldPeak(at: time) {
            heldPeak = level.peakDBFS
            heldAt = time
        }
        if level.clipped {
            clips += 1
            lastClip = time
        }
    }

    /// The held peak at `time`: constant during the hold, then falling at the decay rate down to the floor.
    public func heldPeak(at time: Double) -> Double {
        let sinceHold = time - heldAt - peakHold
        guard sinceHold > 0 else { return heldPeak }
        return max(AudioLevel.floorDBFS, heldPeak - sinceHold * peakDecayDBPerSecond)
    }

    /// What the meter shows at `time`.
    public func reading(at time: Double) -> LevelReading {
        let stale = time - lastUpdate > staleAfter
        return LevelReading(
            rmsDBFS: stale ? AudioLevel.floorDBFS : current.rmsDBFS,
            peakDBFS: stale ? AudioLevel.floorDBFS : current.peakDBFS,
            heldPeakDBFS: heldPeak(at: time),
            isClipping: time - lastClip <= clipHold,
            clipCount: clips)
    }

    /// Forgets everything but the configuration.
    public mutating func reset() {
        self = LevelMeter(peakHold: peakHold, peakDecayDBPerSecond: peakDecayDBPerSecond, clipHold: clipHold,
                          staleAfter: staleAfter)
    }
}
