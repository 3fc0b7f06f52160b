import Live

/// How a ``LiveSimulator`` behaves: what it checks, how it answers and which faults it injects.
/// Every field has a default that makes the simulator behave like a well-running service.
public struct SimulatorOptions: Sendable {
    /// When set, the `x-goog-api-key` header (or `Authorization: Token …`) must carry this value; otherwise the
    /// first message is answered with close 1007 "API key not valid. Please pass a valid API key.".
    public var apiKey: String?

    /// Sends `goAway` this long after `setupComplete`, then closes with 1000 once ``goAwayTimeLeft`` has passed.
    public var goAwayAfter: Duration?
    /// The `timeLeft` announced in `goAway`, and how long the simulator waits before closing.
    public var goAwayTimeLeft: Duration
    /// Closes the TCP connection abruptly (no close frame, the client sees 1006) this long after `setupComplete`.
    public var dropAfter: Duration?
    /// Sends one frame that is not valid JSON right after `setupComplete`, then carries on normally.
    public var malformedFrameAfterSetup: Bool
    /// Sends `setupComplete`, then closes at once with this code and reason (e.g. 1011 and a quota text).
    public var closeAfterSetup: (code: Int, reason: String)?
    /// Which connections the faults above (goAway, drop, malformed frame, close after setup) apply to.
    public var faultScope: FaultScope
    /// Closes before a turn is answered, refused handles, silent replies.
    public var faults = SimulatorFaults()
    /// Vertex AI: the OAuth access tokens (`Authorization: Bearer …`) the simulator accepts; a missing or other
    /// token is closed with 1008 "Request had invalid authentication credentials…". Nil accepts any.
    public var acceptsAccessToken: (@Sendable (String) -> Bool)?
    /// Ephemeral tokens (`Authorization: Token …`) the simulator accepts, each for one new session (resuming
    /// with a handle does not use it up, as on the service); a spent one is closed with 1011 "Token has been used
    /// too many times", an unknown one with 1007. Nil accepts any.
    public var acceptsEphemeralToken: (@Sendable (String) -> Bool)?
    /// Goes down `after` the simulator started, for `length`, then comes back on the same port.
    public var outage: (after: Duration, length: Duration, mode: OutageMode)?

    /// The delay between the end of the user's turn and the start of the model's answer (or tool call).
    public var replyDelay: Duration
    /// Reply audio is sent this many times faster than real time, in bursts (the real service does the same).
    public var audioSpeedup: Double
    /// How often a burst of reply audio is sent.
    public var burstInterval: Duration
    /// When true (the default, like the real service), `turnComplete` comes once the reply audio would have
    /// finished playing in real time, and speech until then barges in. When false it follows
    /// `generationComplete` at once (faster tests).
    public var turnCompleteAfterPlayback: Bool
    /// End turns with `generationComplete` and never send `turnComplete` (seen from 3.1 in the field).
    public var omitTurnComplete = false
    /// Usage field names as the backend served writes them: Vertex's are `candidatesTokenCount` /
    /// `candidatesTokensDetails`, with a `trafficType`.
    public var usageNaming = UsageMetadata.Naming.aiStudio
    /// What the simulator "hears" in audio turns, used in order and cycling.
    public var audioTranscripts: [String]
    /// Send server messages as text frames instead of binary frames.
    public var sendTextFrames: Bool
    /// Send a resumable `sessionResumptionUpdate` right after `setupComplete` (when the client asked for
    /// session resumption), so a client holds a handle before its first turn.
    public var resumptionUpdateAfterSetup: Bool

    /// RMS level (of a full scale of 32768) above which 20 ms of input audio count as speech, for the default
    /// start-of-speech sensitivity; `START_SENSITIVITY_LOW` doubles it.
    public var vadThreshold: Double
    /// Silence that ends a user turn when the client's setup gives no `silenceDurationMs`.
    public var defaultSilenceDuration: Duration

    /// Which connections get the configured faults.
    public enum FaultScope: Sendable, Equatable {
        /// Only the first connection the simulator accepts a `setup` on.
        case firstConnection
        /// Every connection that starts a new session (not a resumption).
        case newSessions
        /// Every connection.
        case everyConnection
    }

    /// Options for a simulator; the defaults describe a healthy service with no faults and no key check.
    public init(
        apiKey: String? = nil,
        goAwayAfter: Duration? = nil,
        goAwayTimeLeft: Duration = .seconds(2),
        dropAfter: Duration? = nil,
        malformedFrameAfterSetup: Bool = false,
        closeAfterSetup: (code: Int, reason: String)? = nil,
        faultScope: FaultScope = .firstConnection,
        replyDelay: Duration = .milliseconds(150),
        audioSpeedup: Double = 4,
        burstInterval: Duration = .milliseconds(100),
        turnCompleteAfterPlayback: Bool = true,
        audioTranscripts: [String] = ["Hello, can you hear me?"],
        sendTextFrames: Bool = false,
        resumptionUpdateAfterSetup: Bool = false,
        vadThreshold: Double = 600,
        defaultSilenceDuration: Duration = .milliseconds(500)
    ) {
        self.apiKey = apiKey
        self.goAwayAfter = goAwayAfter
        self.goAwayTimeLeft = goAwayTimeLeft
        self.dropAfter = dropAfter
        self.malformedFrameAfterSetup = malformedFrameAfterSetup
        self.closeAfterSetup = closeAfterSetup
        self.faultScope = faultScope
        self.replyDelay = replyDelay
        self.audioSpeedup = audioSpeedup
        self.burstInterval = burstInterval
        self.turnCompleteAfterPlayback = turnCompleteAfterPlayback
        self.audioTranscripts = audioTranscripts
        self.sendTextFrames = sendTextFrames
        self.resumptionUpdateAfterSetup = resumptionUpdateAfterSetup
        self.vadThreshold = vadThreshold
        self.defaultSilenceDuration = defaultSilenceDuration
    }

    /// Whether any fault is configured.
    var hasFaults: Bool {
        goAwayAfter != nil || dropAfter != nil || malformedFrameAfterSetup || closeAfterSetup != nil
    }
}
