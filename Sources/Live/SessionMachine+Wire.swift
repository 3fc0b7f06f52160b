import Foundation

/// What goes on the wire, and what waits for it: input held while no connection is live (and its limits), a
/// connection going live (seed, resend, held input, the next queued turn), and the bookkeeping of each write.
extension SessionMachine {
    /// The live connection is going away: input waits from now on, and activity open on its wire is reopened
    /// on the next one.
    mutating func leaveLive(handover: Bool = false) {
        // Nothing is due from a connection that is going: a turn waiting for its answer is sent again on the
        // next one, and the watchdog measures from that send.
        watchdog?.reset()
        switch wire {
        case .live(let activity):
            wire = .waiting(Waiting(
                audio: .holding(bytes: 0, carryActivity: activity != .none), handoverSince: handover ? now : nil))
        case .waiting(var w):
            if handover { w.handoverSince = now }
            wire = .waiting(w)
        case .closed:
            break
        }
    }

    /// A connection went live: seed a fresh session, bring its context up to date, send again the oldest turn
    /// its predecessors left unanswered, then what was held; the other unanswered turns follow one per answer,
    /// then the queued typed turns (`sendNextQueued`).
    mutating func goLive(_ id: Int, resumed: Bool) {
        guard case .waiting(let waiting) = wire else { return }
        wire = .live(.none)
        if !resumed, !log.isEmpty {
            write(.clientContent(ClientContent(turns: log.contents, turnComplete: false)), to: id)
        }
        catchUpContext(on: id, resumed: resumed)
        let carry = if case .holding(_, true) = waiting.audio { true } else { false }
        let dropped = pending.filter { $0.resent || (carry && $0.text == nil) }
        if !dropped.isEmpty {
            // Push-to-talk is open again (the user speaks anew), or it was sent again once already.
            out.append(.log(.info, "not sending again \(dropped.count) unanswered turn(s) (\(carry ? "speaking again" : "sent again once already"))"))
            pending.removeAll { $0.resent || (carry && $0.text == nil) }
        }
        let resending = resendNext(on: id)
        var held = waiting.held
        if carry, held.first != .realtimeInput(.activityStart) { held.insert(.realtimeInput(.activityStart), at: 0) }
        for m in held { write(m, to: id) }
        if !resending { sendNextQueued() }
    }

    /// Sends again, on live connection `id`, the oldest turn a connection that is gone left unanswered; false
    /// when there is none.
    mutating func resendNext(on id: Int) -> Bool {
        guard let i = pending.firstIndex(where: { $0.connection != id }) else { return false }
        let p = pending[i]
        out.append(.log(.info, "sending the unanswered \(p.text == nil ? "spoken" : "typed") turn again on the new connection"
            + (pending.count > 1 ? " (\(pending.count - 1) more after its answer)" : "")))
        for m in p.messages { out.append(.send(m, connection: id)) }
        pending[i].connection = id
        pending[i].resent = true
        pending[i].replying = false
        watchdog?.expectReply(now: now)
        out.append(.emit(.turnResent(text: p.text)))
        return true
    }

    /// User input: straight to the live connection, or held for the next one.
    mutating func send(_ message: ClientMessage) {
        switch wire {
        case .closed:
            return
        case .live:
            if let id = connection.liveID { write(message, to: id) }
        case .waiting(var w):
            wire = .closed  // for the moment, so the held array has one owner and grows in place
            let dropped = hold(message, in: &w)
            wire = .waiting(w)
            if dropped > 0 { out.append(.emit(.heldAudioDropped(bytes: dropped))) }
        }
    }

    static func isAudio(_ message: ClientMessage) -> Bool {
        switch message {
        case .realtimeInput(.audio), .realtimeInput(.activityStart), .realtimeInput(.activityEnd),
            .realtimeInput(.audioStreamEnd): true
        default: false
        }
    }

    /// Holds a message for the next live connection; returns the bytes of mic audio to report as dropped.
    private mutating func hold(_ message: ClientMessage, in w: inout Waiting) -> Int {
        guard Self.isAudio(message) else {
            w.held.append(message)
            return 0
        }
        let offline = connection.isOffline
        var (bytes, carry) = (0, false)
        switch w.audio {
        case .dropping where offline: return 0  // already reported for this outage
        case .dropping: break  // back from the outage on a new session: hold again
        case .holding(let b, let c): (bytes, carry) = (b, c)
        }
        w.held.append(message)
        if case .realtimeInput(.audio(let blob)) = message { bytes += blob.data.count }
        if offline, bytes > limits.offlineAudio {
            // A long outage: speech from before it would be stale by the time it is sent.
            w.held.removeAll(where: Self.isAudio)
            w.audio = .dropping
            return bytes
        }
        var dropped = 0
        while bytes > limits.heldAudio,
            let i = w.held.firstIndex(where: { if case .realtimeInput(.audio) = $0 { true } else { false } })
        {
            if case .realtimeInput(.audio(let old)) = w.held.remove(at: i) {
                bytes -= old.data.count
                dropped += old.data.count
            }
        }
        w.audio = .holding(bytes: bytes, carryActivity: carry)
        return dropped
    }

    /// Writes to the wire and notes what was written: a turn that waits for its answer, activity opened.
    mutating func write(_ message: ClientMessage, to id: Int) {
        out.append(.send(message, connection: id))
        switch message {
        case .clientContent(let c) where c.turnComplete == true:
            pending.append(PendingTurn(messages: [message], text: c.turns?.map(\.text).joined(separator: " "), connection: id))
            watchdog?.expectReply(now: now)
        case .realtimeInput(.text(let text)):
            pending.append(PendingTurn(messages: [message], text: text, connection: id))
            watchdog?.expectReply(now: now)
        case .toolResponse:
            watchdog?.expectReply(now: now)
        case .realtimeInput(.activityStart):
            wire = .live(.open(sent: [message], bytes: 0))
        case .realtimeInput(.audio(let blob)):
            guard case .live(.open(var sent, var bytes)) = wire else { break }
            wire = .closed  // for the moment, so `sent` has one owner and grows in place
            sent.append(message)
            bytes += blob.data.count
            wire = .live(bytes <= limits.heldAudio ? .open(sent: sent, bytes: bytes) : .openTooLong)
        case .realtimeInput(.activityEnd):
            if case .live(.open(let sent, _)) = wire {
                pending.append(PendingTurn(messages: sent + [message], text: nil, connection: id))
            }
            wire = .live(.none)
            watchdog?.expectReply(now: now)
        default:
            break
        }
    }

    /// The model answered (its first output since the turn went out): the turns on the live wire are being
    /// answered (the server read them all; it answers several at once as it sees fit) and the next may go out,
    /// but each is kept until the reply ends (`replyEnded`): a close before that sends it again. Turns waiting
    /// to be sent again are not answered by it.
    mutating func answered() {
        watchdog?.replied()
        guard let id = connection.liveID else { return }
        for i in pending.indices where pending[i].connection == id {
            if let text = pending[i].text, !pending[i].logged { log.appendTurn(role: "user", text) }
            pending[i].logged = true
            pending[i].replying = true
        }
    }

    /// The reply on the live wire ended (turn complete, or interrupted by a newer turn): its turns are answered.
    mutating func replyEnded() {
        guard let id = connection.liveID else { return }
        pending.removeAll { $0.connection == id && $0.replying }
    }
}
