import Conversation
import PulseAudio
import TUI

/// Draws what changed since the last frame, and paces the meters: 20 fps while talking or playing, 5 fps
/// while the mic merely hears the room, not at all when everything is silent (an idle parley sleeps).
final class ScreenPacer {
    private let renderer: FrameRenderer
    private var drawn = UIState()
    private var forceAll = true
    private var lastMeterDraw = -Double.infinity
    private var meters = MetersModel()
    /// The meters' interval as of the last draw (`nextMeterFrame` follows it: the loop waits right after).
    private var interval: Double?

    init(renderer: FrameRenderer) { self.renderer = renderer }

    /// Everything is drawn again on the next frame (after a resize or a suspend).
    func invalidate() {
        renderer.invalidate()
        forceAll = true
    }

    /// Seconds between meter frames now, or nil when nothing moves: 20 fps while a bar or its peak mark moves
    /// (the speaker plays, or the mic hears more than the room), 5 fps while the mic hears only the room (the
    /// bar stays empty; the figure beside it changes by a decibel or two), none in silence. The capture path
    /// wakes the loop when the mic rises above the room (`AudioIO`), so speech moves the bar with its first
    /// chunk, not a 5 fps frame later.
    func meterInterval(_ state: AppState, audio: AudioIO) -> Double? {
        meterInterval(state, mic: audio.capture?.levels(), speaker: audio.playback?.levels())
    }

    /// The same, for levels already read (each `levels()` takes the audio thread's lock).
    private func meterInterval(_ state: AppState, mic: PulseAudio.LevelReading?,
                               speaker: PulseAudio.LevelReading?) -> Double? {
        let speakerActive = (speaker?.rmsDBFS ?? -100) > -90 || meters.speaker.level > -90
        if speakerActive { return Self.movingInterval }
        let heard = max(mic?.rmsDBFS ?? -100, mic?.heldPeakDBFS ?? -100)
        let shown = max(meters.mic.level, meters.mic.peak ?? -100)
        if heard > Self.roomDBFS || shown > Self.roomDBFS { return Self.movingInterval }
        if state.micOpen || heard > -90 || shown > -90 { return 0.2 }
        return nil
    }

    /// Seconds between meter frames while a bar moves. Both bars are metered 20 ms at a time (the capture chunk,
    /// `PlaybackMeter`), so a frame at 20 fps finds two or three new levels and shows the latest, and speech's
    /// syllables (four or five a second) rise and fall over several frames. Each frame is a wake-up of the main
    /// thread and a write to the terminal (over SSH, a packet): at 30 fps the meters were most of the main
    /// thread's CPU in a conversation (README, Performance).
    static let movingInterval = 1.0 / 20

    /// Up to this level the mic hears a room, not a voice: the meter's bar (from -60 dBFS) barely moves.
    static let roomDBFS = MicFraming.roomDBFS

    /// When the next meter frame is due, if the meters move, as of the last `draw` (the loop draws at the end
    /// of every pass, then waits; a voice rising between the two wakes the loop, `AudioIO`).
    func nextMeterFrame() -> Double? {
        interval.map { lastMeterDraw + $0 }
    }

    func draw(_ state: AppState, audio: AudioIO, now: Double, force: Bool = false) {
        var ui = state.ui
        // The levels once a pass: reading them takes the audio thread's lock and moves its meters.
        let mic = audio.capture?.levels()
        let speaker = audio.playback?.levels()
        if now - lastMeterDraw >= (meterInterval(state, mic: mic, speaker: speaker) ?? 0) - 0.001 {
            meters.mic = Self.reading(mic)
            meters.speaker = Self.reading(speaker)
            lastMeterDraw = now
        }
        interval = meterInterval(state, mic: mic, speaker: speaker)
        ui.meters.mic = meters.mic
        ui.meters.speaker = meters.speaker
        if force || forceAll {
            renderer.render(ui, dirty: .all)
            forceAll = false
        } else {
            let dirty = DirtyRegions.changed(from: drawn, to: ui)
            guard !dirty.isEmpty else { return }
            renderer.render(ui, dirty: dirty)
        }
        drawn = ui
    }

    static func reading(_ r: PulseAudio.LevelReading?) -> TUI.LevelReading {
        guard let r else { return TUI.LevelReading() }
        // Whole decibels: finer changes do not move the bar, so they should not cost a redraw.
        func q(_ d: Double) -> Double { d.isFinite ? d.rounded() : d }
        return TUI.LevelReading(level: q(r.rmsDBFS), peak: q(r.heldPeakDBFS), clipped: r.isClipping)
    }
}
