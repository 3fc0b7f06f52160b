import Live

/// How much detail images and frames carry: the `generationConfig.mediaResolution` the model is told, and the
/// longest side, in pixels, parley scales pictures to before sending them (more pixels than the model reads
/// at that resolution would only cost bytes).
enum MediaResolution: String, Sendable, CaseIterable {
    case low, medium, high

    /// The value of `generationConfig.mediaResolution`.
    var wireValue: String { "MEDIA_RESOLUTION_\(rawValue.uppercased())" }

    /// Pictures are scaled down (never up) so their longer side fits this.
    var longestSide: Int {
        switch self {
        case .low: 384
        case .medium: 768
        case .high: 1536
        }
    }
}

/// What `realtimeInputConfig.turnCoverage` asks the model to take into a turn.
enum TurnCoverage: String, Sendable, CaseIterable {
    /// Only input sent while the user was active (the frames parley sends while you talk).
    case activity
    /// Everything sent, including frames between turns.
    case all

    var wireValue: String {
        switch self {
        case .activity: "TURN_INCLUDES_ONLY_ACTIVITY"
        case .all: "TURN_INCLUDES_ALL_INPUT"
        }
    }
}
