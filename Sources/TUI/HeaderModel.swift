/// The connection state the header shows, each with its own colour role.
public enum ConnectionState: Sendable, Equatable {
    case connecting
    case live
    /// Reconnecting; `inSeconds` is the backoff left, nil while the attempt runs.
    case resuming(inSeconds: Int?)
    case failed(reason: String)
    case offline
    /// The network or the service is away; the next attempt is in `inSeconds` (nil: under way).
    case offlineRetrying(inSeconds: Int?)
}

/// How Space is read, shown in the header.
public enum PushToTalkMode: Sendable, Equatable {
    /// Kitty keyboard protocol: hold Space to talk, true release.
    case kittyHold
    /// Legacy terminal: tap Space to toggle, hold inferred from auto-repeat.
    case tapToggle
    /// Open mic: the server detects speech.
    case openMic
}

/// How much of a budget is spent, for the header's colour.
public enum BudgetLevel: Sendable, Equatable {
    /// No budget, or under 80 % of it.
    case fine
    /// 80 % or more: the header warns.
    case warning(percent: Int)
    /// Spent: the mic and typed turns wait for the user's word.
    case reached
}

/// What the header shows. The App fills it in.
public struct HeaderModel: Sendable, Equatable {
    public var appName: String
    public var model: String
    public var voice: String
    public var connection: ConnectionState
    /// Seconds since the session started.
    public var sessionAge: Int?
    /// Seconds until the server's announced disconnect (`goAway`).
    public var goAwaySeconds: Int?
    /// Total tokens used in the session.
    public var tokens: Int?
    /// What the conversation cost so far, e.g. `≈ $0.07` (`≈ $?` when part of it has no price).
    public var cost: String?
    /// How full the model's context window is, in per cent.
    public var contextPercent: Int?
    public var budget = BudgetLevel.fine
    /// Latency of the last turn in ms (end of user speech → first reply audio).
    public var latencyMs: Int?
    public var pushToTalk: PushToTalkMode
    /// True against the simulator: shows a DEMO marker.
    public var demo: Bool
    /// What the model is doing in the background (`interactionStatus`), while it lasts.
    public var interactionStatus: String?
    /// Camera or screen sharing: the source, frames sent and bytes per frame, or that nothing is captured.
    public var vision: String?
    /// Frames are going out now (drawn as live; otherwise dimmed).
    public var visionLive = false
    /// The conversation's sound is being recorded: a REC mark at the right of the first row.
    public var recording = false

    public init(appName: String = "parley", model: String = "", voice: String = "", connection: ConnectionState = .offline,
                sessionAge: Int? = nil, goAwaySeconds: Int? = nil, tokens: Int? = nil, latencyMs: Int? = nil,
                pushToTalk: PushToTalkMode = .tapToggle, demo: Bool = false) {
        self.appName = appName; self.model = model; self.voice = voice; self.connection = connection
        self.sessionAge = sessionAge; self.goAwaySeconds = goAwaySeconds; self.tokens = tokens; self.latencyMs = latencyMs
        self.pushToTalk = pushToTalk; self.demo = demo
    }
}
