/// One level meter's reading, in dBFS.
public struct LevelReading: Sendable, Equatable {
    /// Current level, dBFS (≤ 0; `-.infinity` for silence).
    public var level: Double
    /// Held peak, dBFS (see `PeakHold`).
    public var peak: Double?
    /// A sample reached full scale recently.
    public var clipped: Bool
    public init(level: Double = -.infinity, peak: Double? = nil, clipped: Bool = false) {
        self.level = level; self.peak = peak; self.clipped = clipped
    }
}

/// What the VU meters show. The App fills it in from the audio level events.
public struct MetersModel: Sendable, Equatable {
    public var mic: LevelReading
    public var speaker: LevelReading
    /// The mic gate is open (talking): shows a talking indicator.
    public var talking: Bool
    /// The mic is muted.
    public var micMuted: Bool
    /// Which echo protection is active, e.g. "echo: headphones" (the App's words).
    public var echoProtection: String?
    /// Bottom of the scale in dBFS (top is 0).
    public var floor: Double

    public init(mic: LevelReading = .init(), speaker: LevelReading = .init(), talking: Bool = false, micMuted: Bool = false,
                echoProtection: String? = nil, floor: Double = -60) {
        self.mic = mic; self.speaker = speaker; self.talking = talking; self.micMuted = micMuted
        self.echoProtection = echoProtection; self.floor = floor
    }
}
