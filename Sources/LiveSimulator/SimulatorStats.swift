import Live

/// What a ``LiveSimulator`` has seen and sent so far: enough for a test to prove that nothing was lost.
public struct SimulatorStats: Sendable, Equatable {
    /// WebSocket connections accepted (upgrades completed).
    public var connectionsAccepted = 0
    /// Connections open right now.
    public var openConnections = 0
    /// Every `setup` that was accepted, in order.
    public var setups: [SetupRecord] = []
    /// Every session (a conversation that may span several connections through resumption), by id.
    public var sessions: [SessionStats] = []
    /// Client messages received (all kinds, all connections), including rejected ones.
    public var clientMessagesReceived = 0
    /// Bytes of input audio received across all connections.
    public var audioBytesReceived = 0
    /// Model turns that ended with `turnComplete` (interrupted ones included).
    public var turnsAnswered = 0
    /// Model turns cut short by a barge-in or a new turn (`interrupted: true`).
    public var interruptions = 0
    /// What the simulator "heard" in each user turn, in order (text turns verbatim, audio turns scripted).
    public var userTurns: [String] = []
    /// Context added without a turn (`clientContent` with `turnComplete: false`, e.g. a seeded fresh session).
    public var contextReceived: [String] = []
    /// Replies the silent-reply fault muted.
    public var silentReplies = 0
    /// Connections refused or closed at once while the simulator was down.
    public var connectionsRefusedWhileDown = 0
    /// Every `usageMetadata` sent, in order (one per completed or cut turn), to compare with what a client shows.
    public var usageReported: [UsageMetadata] = []
    /// The full text of each model reply that was started, in order.
    public var replies: [String] = []
    /// Ids of every function call sent in a `toolCall`.
    public var toolCallsSent: [String] = []
    /// Ids of every `functionResponses[]` entry received (known or not).
    public var toolResponsesReceived: [String] = []
    /// Ids of responses that matched no pending call (unknown, already answered, or cancelled).
    public var unknownToolResponseIDs: [String] = []
    /// Ids of responses to calls the simulator had cancelled (a client should send none).
    public var responsesToCancelledCalls: [String] = []
    /// Ids of partial results received (`willContinue: true`) for NON_BLOCKING calls, in order.
    public var partialToolResults: [String] = []
    /// The `scheduling` of each final NON_BLOCKING result received (`WHEN_IDLE` when the client sent none).
    public var toolResponseSchedulings: [String] = []
    /// Ids sent in `toolCallCancellation`.
    public var toolCallsCancelled: [String] = []
    /// `goAway` messages sent.
    public var goAwaysSent = 0
    /// Connections dropped on purpose (no close frame).
    public var dropsInjected = 0
    /// Malformed frames sent on purpose.
    public var malformedFramesSent = 0
    /// Every close frame the simulator sent, in order.
    public var closesSent: [CloseReason] = []
    /// Close codes the clients sent.
    public var clientCloseCodes: [Int] = []
    /// Connections whose credential (access token, ephemeral token) was refused.
    public var credentialsRefused = 0
    /// New sessions that used up an ephemeral token.
    public var ephemeralTokensSpent = 0
    /// Every `contextUpdate` the simulator took (refused ones close the connection and are in `closesSent`).
    public var contextUpdates: [ContextUpdateRecord] = []
    /// The backend each accepted setup came in on (by the URL path), in order.
    public var backends: [LiveModel.Backend] = []

    // Vision (`realtimeInput.video`).
    /// Every frame or image accepted, in order.
    public var videoFrames: [VideoFrameRecord] = []
    /// Frames dropped because they came less than about a second after the previous one.
    public var videoFramesTooFast = 0
    /// Blobs refused (not `image/jpeg`, not a JPEG, or too large); each closed its connection with 1007.
    public var videoFramesRefused = 0

    /// The last close frame the simulator sent.
    public var lastCloseSent: CloseReason? { closesSent.last }

    /// Empty stats.
    public init() {}

    /// The session with this id.
    public func session(_ id: Int) -> SessionStats? { sessions.first { $0.id == id } }
}

/// One accepted `setup`.
public struct SetupRecord: Sendable, Equatable {
    /// The connection number (1 for the first connection the simulator accepted).
    public var connection: Int
    /// The session it belongs to (the same id for a resumed session).
    public var sessionID: Int
    /// The model, as `models/<id>`.
    public var model: String
    /// The voice named in the speech config, if any.
    public var voiceName: String?
    /// Whether the setup carried a resumption handle (and so continued an earlier session).
    public var resumed: Bool
    /// Whether the setup asked for session resumption at all.
    public var resumptionRequested: Bool
    public var automaticActivityDetection: Bool
    /// The declared function names.
    public var declaredTools: [String]
    /// The system instruction's text, if any.
    public var systemInstruction: String? = nil
}

/// One `contextUpdate` taken.
public struct ContextUpdateRecord: Sendable, Equatable {
    public var connection: Int
    /// The new instruction's text, when the update carried one.
    public var systemInstruction: String?
    /// The declared function names from then on, when the update carried tools.
    public var declaredTools: [String]?
}

/// One conversation, across all of its connections.
public struct SessionStats: Sendable, Equatable {
    public var id: Int
    /// Connections that carried this session (1 + resumptions).
    public var connections: Int
    /// Input audio bytes received across all of the session's connections.
    public var audioBytesReceived: Int
    /// Turns the model completed in this session.
    public var turnsAnswered: Int
}
