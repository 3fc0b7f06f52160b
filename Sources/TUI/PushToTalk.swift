/// Push-to-talk from Space events: a pure state machine driven by timestamps (seconds, monotonic).
///
/// With the kitty protocol (`.kitty`) Space reports press and release: hold to talk; a short tap toggles.
/// Without it (`.autoRepeat`) every Space is a press and a held key auto-repeats: the first press starts
/// talking at once; repeats within `holdDetectWindow` mean a hold, and talking stops when they stop for
/// `repeatTimeout`; no repeat means a tap, so talking stays on until the next Space.
/// The App must call `tick(now:)` at `deadline` (use it as the poll timeout); there is no busy loop.
public struct PushToTalk: Sendable, Equatable {
    /// How Space events are interpreted.
    public enum Mode: Sendable, Equatable { case kitty, autoRepeat }

    /// Timings, in seconds.
    public struct Timings: Sendable, Equatable {
        /// Longest wait for the first auto-repeat after a press (terminals' repeat delay is 250–660 ms).
        public var holdDetectWindow: Double
        /// Silence after the last repeat that means the key was released (repeats come every 30–50 ms).
        public var repeatTimeout: Double
        /// In kitty mode, a press shorter than this is a tap (toggle) rather than a hold.
        public var tapMaxDuration: Double
        public init(holdDetectWindow: Double = 0.7, repeatTimeout: Double = 0.15, tapMaxDuration: Double = 0.25) {
            self.holdDetectWindow = holdDetectWindow; self.repeatTimeout = repeatTimeout; self.tapMaxDuration = tapMaxDuration
        }
    }

    /// What the App should do.
    public enum Action: Sendable, Equatable { case startTalking, stopTalking }

    enum Phase: Sendable, Equatable {
        case idle
        /// Talking since a press; a repeat makes it a hold, silence a tap.
        case pending(since: Double)
        /// Held: repeats (legacy) or no release yet (kitty).
        case holding(last: Double)
        /// Toggled on by a tap.
        case toggledOn
        /// Toggled off by a press whose repeats / release must be swallowed.
        case stopping(last: Double, sawRepeat: Bool)
    }

    public var mode: Mode
    public var timings: Timings
    /// In kitty mode, whether a short tap toggles talking (as in legacy terminals).
    public var kittyTapToggles: Bool
    private(set) var phase: Phase = .idle

    public init(mode: Mode, timings: Timings = .init(), kittyTapToggles: Bool = true) {
        self.mode = mode; self.timings = timings; self.kittyTapToggles = kittyTapToggles
    }

    /// True while the mic gate should be open.
    public var isTalking: Bool {
        switch phase {
        case .idle, .stopping: return false
        case .pending, .holding, .toggledOn: return true
        }
    }

    /// When `tick(now:)` must be called if no Space event comes first; nil: no timer needed.
    public var deadline: Double? {
        switch (mode, phase) {
        case (_, .idle), (_, .toggledOn): return nil
        case (.autoRepeat, .pending(let t)): return t + timings.holdDetectWindow
        case (.autoRepeat, .holding(let t)): return t + timings.repeatTimeout
        case (.autoRepeat, .stopping(let t, let rep)): return t + (rep ? timings.repeatTimeout : timings.holdDetectWindow)
        case (.kitty, _): return nil
        }
    }

    /// Feeds a Space key event (others are ignored).
    public mutating func handle(_ e: KeyEvent, now: Double) -> Action? {
        guard e.isSpace else { return nil }
        var out = tick(now: now)
        let a: Action?
        switch mode {
        case .kitty: a = kitty(e.kind, now)
        case .autoRepeat: a = e.kind == .release ? nil : legacy(now)
        }
        if let a { out = a }
        return out
    }

    /// Advances time: infers release or tap once deadlines pass.
    public mutating func tick(now: Double) -> Action? {
        guard mode == .autoRepeat, let d = deadline, now >= d else { return nil }
        switch phase {
        case .pending: phase = .toggledOn; return nil
        case .holding: phase = .idle; return .stopTalking
        case .stopping: phase = .idle; return nil
        case .idle, .toggledOn: return nil
        }
    }

    /// Stops talking now (e.g. on switching to open mic or opening a menu).
    public mutating func cancel() -> Action? {
        let was = isTalking
        phase = .idle
        return was ? .stopTalking : nil
    }

    private mutating func legacy(_ now: Double) -> Action? {
        switch phase {
        case .idle: phase = .pending(since: now); return .startTalking
        case .pending, .holding: phase = .holding(last: now); return nil
        case .toggledOn: phase = .stopping(last: now, sawRepeat: false); return .stopTalking
        case .stopping: phase = .stopping(last: now, sawRepeat: true); return nil
        }
    }

    private mutating func kitty(_ kind: KeyEventKind, _ now: Double) -> Action? {
        switch (kind, phase) {
        case (.press, .idle): phase = .pending(since: now); return .startTalking
        case (.press, .toggledOn): phase = .stopping(last: now, sawRepeat: false); return .stopTalking
        case (.release, .pending(let since)):
            if kittyTapToggles && now - since < timings.tapMaxDuration { phase = .toggledOn; return nil }
            phase = .idle; return .stopTalking
        case (.release, .holding): phase = .idle; return .stopTalking
        case (.release, .stopping): phase = .idle; return nil
        case (.repeat, .pending): phase = .holding(last: now); return nil
        default: return nil
        }
    }
}
