import Foundation
import Live

/// Faults for the close classes and outages a client must live through, applied around a ``SimulatedSession``
/// by the connection handler: closes before a turn is answered, refused resumption handles, silent replies.
/// (Outages, when the whole server is unreachable, are ``LiveSimulator/setDown(_:)``.)
public struct SimulatorFaults: Sendable {
    /// Closes the connection with `reason` when a user turn arrives after `answeredTurns` answered turns, before
    /// it is answered (so a client must send it again after reconnecting). Fires `times` times in all.
    public var closeOnTurn: (answeredTurns: Int, reason: CloseReason, times: Int)?
    /// Every setup that carries a resumption handle is closed with this reason (e.g. `.sessionExpired`), as a
    /// restarted service does: the client must start a fresh session.
    public var refuseHandles: CloseReason?
    /// The next `count` user turns get a silent reply: nothing at all, or audio far below -60 dBFS.
    public var silentReplies: (count: Int, kind: SilentReply)?

    public enum SilentReply: Sendable, Equatable {
        /// No output at all: no audio, no transcript, no `turnComplete` (a stuck model).
        case nothing
        /// Audio that is near silence (samples within ±8 of zero), with no transcript.
        case quietAudio
    }

    public init(closeOnTurn: (answeredTurns: Int, reason: CloseReason, times: Int)? = nil, refuseHandles: CloseReason? = nil,
                silentReplies: (count: Int, kind: SilentReply)? = nil) {
        self.closeOnTurn = closeOnTurn
        self.refuseHandles = refuseHandles
        self.silentReplies = silentReplies
    }

    var isEmpty: Bool { closeOnTurn == nil && refuseHandles == nil && silentReplies == nil }
}

/// How the simulator is unreachable during an outage.
public enum OutageMode: Sendable, Equatable {
    /// Nothing listens on the port: connections are refused.
    case refuseConnections
    /// Connections are accepted and closed at once, before the WebSocket upgrade.
    case closeImmediately
}

/// One connection's view of the faults: decides, per frame, what to refuse, close or silence.
struct FaultInjector {
    let faults: SimulatorFaults
    let store: SimulatorStore
    private var silent: SimulatorFaults.SilentReply?

    init(faults: SimulatorFaults, store: SimulatorStore) {
        self.faults = faults
        self.store = store
    }

    /// Before the session sees a frame: a refused handle closes the connection at once.
    func refusal(for bytes: Data) -> CloseReason? {
        guard let reason = faults.refuseHandles,
            case .setup(let setup)? = try? LiveCodec().decodeClient(bytes),
            let handle = setup.sessionResumption?.handle, !handle.isEmpty
        else { return nil }
        return reason
    }

    /// After the session handled a frame that started `newTurns` user turns: a close, if one is due.
    mutating func afterTurns(_ newTurns: Int) -> CloseReason? {
        guard newTurns > 0 else { return nil }
        if let close = faults.closeOnTurn, store.claimTurnClose(afterAnswered: close.answeredTurns, times: close.times) {
            return close.reason
        }
        if let s = faults.silentReplies, store.claimSilentReply(count: s.count) {
            silent = s.kind
        } else {
            silent = nil
        }
        return nil
    }

    /// Outgoing actions, with a silent reply's output removed or muted.
    func filter(_ actions: [SimulatedSession.Action]) -> [SimulatedSession.Action] {
        guard let silent else { return actions }
        return actions.compactMap { action in
            guard case .send(var m) = action else { return action }
            if m.toolCall != nil { return nil }
            guard var content = m.serverContent else { return action }
            content.outputTranscription = nil
            content.generationComplete = nil
            if silent == .nothing { content.turnComplete = nil }
            if let turn = content.modelTurn {
                if silent == .nothing {
                    content.modelTurn = nil
                } else {
                    content.modelTurn?.parts = turn.parts.compactMap { part in
                        guard let blob = part.inlineData else { return nil }
                        return Part(inlineData: Blob(mimeType: blob.mimeType, data: Self.quiet(bytes: blob.data.count)))
                    }
                }
            }
            m.serverContent = content
            return m.isEmpty ? nil : .send(m)
        }
    }

    /// s16le samples alternating ±4: about -78 dBFS.
    static func quiet(bytes: Int) -> Data {
        var d = Data(capacity: bytes)
        for i in 0..<(bytes / 2) {
            let v = Int16(i % 2 == 0 ? 4 : -4)
            d.append(UInt8(truncatingIfNeeded: v))
            d.append(UInt8(truncatingIfNeeded: v >> 8))
        }
        return d
    }
}

extension ServerMessage {
    /// Whether filtering left nothing worth sending.
    var isEmpty: Bool {
        let c = serverContent
        let contentEmpty = c == nil || (c?.modelTurn == nil && c?.outputTranscription == nil && c?.inputTranscription == nil
            && c?.turnComplete == nil && c?.generationComplete == nil && c?.interrupted == nil)
        return contentEmpty && setupComplete == nil && toolCall == nil && toolCallCancellation == nil
            && sessionResumptionUpdate == nil && goAway == nil && usageMetadata == nil
    }
}
