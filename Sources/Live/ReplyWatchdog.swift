import Foundation

/// Notices the field's most common silent failure: a user turn (or a tool response) that gets no reply, or a
/// reply whose audio is near silence. A value type fed with what happened and when (seconds on any monotonic
/// clock), returning what to do: first a nudge (send the unanswered turn again on the same connection), then a
/// resume on a new connection.
public struct ReplyWatchdog: Sendable {
    public struct Policy: Sendable, Equatable {
        /// No reply audio or text this long after a user turn or a tool response is a stall.
        public var replyTimeout: Double
        /// Reply audio whose samples all stay below this level (dBFS) counts as silence.
        public var quietDBFS: Double
        /// This much near-silent reply audio (seconds of audio) in a row is a stall.
        public var quietSeconds: Double

        public init(replyTimeout: Double = 12, quietDBFS: Double = -60, quietSeconds: Double = 3) {
            self.replyTimeout = replyTimeout
            self.quietDBFS = quietDBFS
            self.quietSeconds = quietSeconds
        }
    }

    /// What was noticed.
    public enum Finding: Sendable, Equatable, CustomStringConvertible {
        /// No reply for this many seconds.
        case noReply(seconds: Double)
        /// This many seconds of reply audio were near silence.
        case quietReply(seconds: Double)

        public var description: String {
            switch self {
            case .noReply(let s): "no reply \(Int(s.rounded())) s after the turn"
            case .quietReply(let s): "the reply's audio was silent for \(Int(s.rounded())) s"
            }
        }
    }

    public enum Recovery: Sendable, Equatable {
        /// Send the unanswered turn again on the same connection.
        case nudge
        /// Move to a new connection (resuming with the handle), where the turn is sent again.
        case resume
    }

    public let policy: Policy
    private var waitingSince: Double?
    private var quietAudio = 0.0
    private var nudged = false

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// The largest sample magnitude that still counts as silence.
    var quietPeak: Int { Int(32768 * pow(10, policy.quietDBFS / 20)) }

    /// A user turn or a tool response went out: a reply is due. Measured from the oldest input still waiting:
    /// a later turn does not push the deadline back (a silent server would be noticed later and later).
    public mutating func expectReply(now: Double) {
        if waitingSince == nil { waitingSince = now }
        quietAudio = 0
    }

    /// Text, a transcription or a tool call arrived: the model is answering.
    public mutating func replied() {
        waitingSince = nil
        quietAudio = 0
        nudged = false
    }

    /// The turn ended or was interrupted, or the connection went away: nothing is due now.
    public mutating func reset() {
        waitingSince = nil
        quietAudio = 0
    }

    /// What a chunk of reply audio says about the reply.
    public enum AudioVerdict: Sendable, Equatable {
        /// Real sound: the model is answering.
        case audible
        /// Near silence, not for long yet.
        case quiet
        /// Near silence for too long.
        case stalled(Finding, Recovery)
    }

    /// Reply audio (24 kHz mono s16le) arrived.
    public mutating func replyAudio(_ pcm: Data, now: Double) -> AudioVerdict {
        // Audible as soon as one sample is: a reply's frames are, within their first samples.
        let limit = quietPeak
        let audible = pcm.withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).contains { abs(Int(Int16(littleEndian: $0))) > limit }
        }
        if audible {
            replied()
            return .audible
        }
        waitingSince = nil  // audio is arriving: only its loudness is in question now
        quietAudio += Double(pcm.count / 2) / Double(LiveAudioFormat.outputSampleRate)
        guard quietAudio > policy.quietSeconds else { return .quiet }
        let finding = Finding.quietReply(seconds: quietAudio)
        quietAudio = 0
        return .stalled(finding, escalate(now: now))
    }

    /// When `tick` must be called next, if a reply is due.
    public var nextDeadline: Double? { waitingSince.map { $0 + policy.replyTimeout } }

    /// Checks the reply timer; returns a recovery when it ran out.
    public mutating func tick(now: Double) -> (Finding, Recovery)? {
        guard let since = waitingSince, now - since >= policy.replyTimeout else { return nil }
        return (.noReply(seconds: now - since), escalate(now: now))
    }

    private mutating func escalate(now: Double) -> Recovery {
        if nudged {
            nudged = false
            waitingSince = nil  // the turn sent again on the new connection re-arms it
            return .resume
        }
        nudged = true
        waitingSince = now
        return .nudge
    }
}
