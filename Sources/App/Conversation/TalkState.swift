import TUI

/// Who is talking: the one owner of "push-to-talk or open mic", "the mic is open" and "the model is
/// answering". `AudioIO` and `LiveSession` are told what changed (the reducer turns each change into
/// effects); they never decide any of it.
struct TalkState: Sendable, Equatable {
    /// What the microphone does.
    enum Mic: Sendable, Equatable {
        /// Nothing is sent (push-to-talk idle, open mic before the connection is live).
        case closed
        /// Push-to-talk: held or toggled on; audio goes out between `activityStart` and `activityEnd`.
        case pushing
        /// Open mic: audio streams and the server detects speech.
        case listening
        /// Open mic, muted by the user (kept across reconnects).
        case muted
        /// The gate was told to close; `then` goes on the wire once the capture thread has handed over the
        /// chunk in flight (reported as `micClosed(id)`), or after `closeTimeout` if it never does.
        case closing(id: Int, then: WireFollowUp, since: Double, muted: Bool)
    }

    /// What follows the last mic chunk on the wire.
    enum WireFollowUp: Sendable, Equatable {
        /// Push-to-talk released: the end of the manual activity.
        case activityEnd
        /// Open mic paused for more than a moment.
        case audioStreamEnd
    }

    /// Whether the model is answering.
    enum Reply: Sendable, Equatable {
        case idle
        /// From the model's first output of a turn to `turnComplete` (or `interrupted`).
        case responding
        /// Cut here (Ctrl-C, or a typed turn sent over it): its remaining audio is dropped until the turn ends.
        case discarding
    }

    var mode: Config.Mode
    /// A mode switch waiting for the new connection.
    var pendingMode: Config.Mode?
    var mic: Mic = .closed
    var reply: Reply = .idle
    /// Push-to-talk gesture recognition (tap, hold, inferred release); it does not own the mic: the talk
    /// state resets it whenever the mic closes for another reason.
    var gesture: PushToTalk
    private var nextCloseID = 1

    /// How long to wait for the capture thread's last chunk before sending the follow-up anyway.
    static let closeTimeout = 0.25

    init(mode: Config.Mode, kitty: Bool) {
        self.mode = mode
        gesture = PushToTalk(mode: kitty ? .kitty : .autoRepeat)
    }

    /// Audio is going out (or about to).
    var micIsOpen: Bool { mic == .pushing || mic == .listening }

    var modelAnswering: Bool { reply != .idle }

    /// Open mic is muted by the user (or about to be, once the gate has closed).
    var isMuted: Bool {
        if case .closing(_, _, _, true) = mic { return true }
        return mic == .muted
    }

    /// Opens the mic in the current mode; returns the effects, in wire order.
    mutating func openMic() -> [Effect] {
        var fx = settleClosing()
        switch mode {
        case .ptt:
            guard mic != .pushing else { return fx }
            mic = .pushing
            fx += [.live(.activityStart), .mic(.open(openMic: false))]
        case .open:
            guard mic != .listening else { return fx }
            mic = .listening
            fx.append(.mic(.open(openMic: true)))
        }
        return fx
    }

    /// Closes the mic; the wire follow-up waits for the last chunk. `muted` keeps open mic muted.
    mutating func closeMic(now: Double, muted: Bool = false) -> [Effect] {
        _ = gesture.cancel()
        switch mic {
        case .pushing, .listening:
            let id = nextCloseID
            nextCloseID += 1
            mic = .closing(id: id, then: mode == .ptt ? .activityEnd : .audioStreamEnd, since: now, muted: muted)
            return [.mic(.close(id: id))]
        case .closing(let id, let then, let since, _):
            mic = .closing(id: id, then: then, since: since, muted: muted)
            return []
        case .closed:
            if muted { mic = .muted }
            return []
        case .muted:
            if !muted { mic = .closed }
            return []
        }
    }

    /// The capture thread handed over the chunk that closed the gate.
    mutating func micClosed(id: Int) -> [Effect] {
        guard case .closing(let pending, _, _, _) = mic, pending == id else { return [] }
        return settleClosing()
    }

    /// Sends a pending follow-up now (before a new activity starts, or when the last chunk never came).
    mutating func settleClosing() -> [Effect] {
        guard case .closing(_, let then, _, let muted) = mic else { return [] }
        mic = muted ? .muted : .closed
        return [.live(then == .activityEnd ? .activityEnd : .audioStreamEnd)]
    }

    /// When `tick` must run for a closing mic.
    var deadline: Double? {
        var d: [Double] = []
        if case .closing(_, _, let since, _) = mic { d.append(since + Self.closeTimeout) }
        if let g = gesture.deadline { d.append(g) }
        return d.min()
    }

    mutating func tick(now: Double) -> [Effect] {
        if case .closing(_, _, let since, _) = mic, now >= since + Self.closeTimeout { return settleClosing() }
        return []
    }
}
