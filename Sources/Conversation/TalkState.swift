import TUI

/// Push-to-talk or open mic (`mode` in the config, `--mode`).
package enum TalkMode: String, Sendable, CaseIterable { case ptt, open }

/// Who is talking: the one owner of "push-to-talk or open mic", "the mic is open" and "the model is
/// answering". `AudioIO` and `LiveSession` are told what changed (the reducer turns each change into
/// effects); they never decide any of it.
package struct TalkState: Sendable, Equatable {
    /// What the microphone does.
    package enum Mic: Sendable, Equatable {
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
    package enum WireFollowUp: Sendable, Equatable {
        /// Push-to-talk released: the end of the manual activity.
        case activityEnd
        /// Open mic paused for more than a moment.
        case audioStreamEnd
    }

    /// Whether the model is answering.
    package enum Reply: Sendable, Equatable {
        case idle
        /// From the model's first output of a turn to `turnComplete` (or `interrupted`).
        case responding
        /// Cut here (Ctrl-C, or a typed turn sent over it): its remaining audio is dropped until the turn ends.
        case discarding
    }

    package private(set) var mode: TalkMode
    /// A mode switch waiting for the new connection.
    private(set) var pendingMode: TalkMode?
    package private(set) var mic: Mic = .closed
    package private(set) var reply: Reply = .idle
    /// Push-to-talk gesture recognition (tap, hold, inferred release); it does not own the mic: the talk
    /// state resets it whenever the mic closes or a talk is refused (`cancelGesture`).
    private(set) var gesture: PushToTalk
    private var nextCloseID = 1

    /// How long to wait for the capture thread's last chunk before sending the follow-up anyway.
    static let closeTimeout = 0.25

    package init(mode: TalkMode, kitty: Bool) {
        self.mode = mode
        gesture = PushToTalk(mode: kitty ? .kitty : .autoRepeat)
    }

    /// Audio is going out (or about to).
    var micIsOpen: Bool { mic == .pushing || mic == .listening }

    package var modelAnswering: Bool { reply != .idle }

    /// Open mic is muted by the user (or about to be, once the gate has closed).
    var isMuted: Bool {
        if case .closing(_, _, _, true) = mic { return true }
        return mic == .muted
    }

    /// Opens the mic in the current mode; returns the effects, in wire order.
    package mutating func openMic() -> [Effect] {
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
        cancelGesture()
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
    package mutating func micClosed(id: Int) -> [Effect] {
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
    package var deadline: Double? {
        var d: [Double] = []
        if case .closing(_, _, let since, _) = mic { d.append(since + Self.closeTimeout) }
        if let g = gesture.deadline { d.append(g) }
        return d.min()
    }

    package mutating func tick(now: Double) -> [Effect] {
        if case .closing(_, _, let since, _) = mic, now >= since + Self.closeTimeout { return settleClosing() }
        return []
    }

    // MARK: The gesture

    /// A key for the push-to-talk gesture: what it means now (start or stop talking), if anything.
    mutating func gestureKey(_ k: KeyEvent, now: Double) -> PushToTalk.Action? { gesture.handle(k, now: now) }

    /// An inferred release (no key repeat came), when it is due.
    mutating func gestureTick(now: Double) -> PushToTalk.Action? { gesture.tick(now: now) }

    /// The rule for the gesture: whenever the mic closes, or a talk is refused or cut short for a reason other
    /// than the key (offline, no audio, the budget, a menu, a mode switch, a suspend, a failure), the gesture
    /// ends with it, so a held or toggled key does not start talking later on its own.
    mutating func cancelGesture() { _ = gesture.cancel() }

    /// The terminal reports key releases (kitty): a hold is a hold, not inferred from key repeat.
    mutating func useKeyReleases() { gesture.mode = .kitty }

    // MARK: The mode

    /// A switch to `mode` once the next connection is live (the setup carries the mode).
    mutating func requestMode(_ mode: TalkMode) { pendingMode = mode }

    /// Applies a requested switch; returns the new mode, or nil when none was waiting.
    mutating func applyPendingMode() -> TalkMode? {
        guard let next = pendingMode else { return nil }
        pendingMode = nil
        mode = next
        return next
    }

    /// Open mic is unmuted (the budget muted it, or the user): closed, ready to open again. Unmuted while
    /// the gate was still closing, the pending end of the audio stream is dropped: the audio goes on.
    package mutating func unmute() { if isMuted { mic = .closed } }

    // MARK: The reply

    /// The model's output began (a first transcript, text or audio of a turn).
    mutating func replyStarted() { if reply == .idle { reply = .responding } }

    /// Cuts a reply being spoken: its remaining audio is dropped until the turn ends. False when none was.
    @discardableResult
    package mutating func cutReply() -> Bool {
        guard reply == .responding else { return false }
        reply = .discarding
        return true
    }

    /// The server said the reply was interrupted (by the user's speech).
    mutating func replyInterrupted() { if reply == .responding { reply = .idle } }

    /// The turn is complete.
    package mutating func replyEnded() { reply = .idle }
}
