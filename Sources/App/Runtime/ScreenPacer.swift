import Conversation
import PulseAudio
import TUI

/// Draws what changed since the last frame, and paces the meters: 30 fps while talking or playing, 5 fps
/// while the mic merely hears the room, not at all when everything is silent (an idle parley sleeps).
final class ScreenPacer {
    private let renderer: FrameRenderer
    private var drawn = UIState()
    private var forceAll = true
    private var lastMeterDraw = -Double.infinity
    private var meters = MetersModel()

    init(renderer: FrameRenderer) { self.renderer = renderer }

    /// Everything is drawn again on the next frame (after a resize or a suspend).
    func invalidate() {
        renderer.invalidate()
        forceAll = true
    }

    /// Seconds between meter frames now, or nil when nothing moves.
    func meterInterval(_ state: AppState, audio: AudioIO) -> Double? {
        let speakerActive = (audio.playback?.levels().rmsDBFS ?? -100) > -90 || meters.speaker.level > -90
        if state.micOpen || speakerActive { return 1.0 / 30 }
        if meters.mic.level > -90 || (audio.capture?.levels().rmsDBFS ?? -100) > -90 { return 0.2 }
        return nil
    }

    /// When the next meter frame is due, if the meters move.
    func nextMeterFrame(_ state: AppState, audio: AudioIO) -> Double? {
        meterInterval(state, audio: audio).map { lastMeterDraw + $0 }
    }

    func draw(_ state: AppState, audio: AudioIO, now: Double, force: Bool = false) {
        var ui = state.ui
        if now - lastMeterDraw >= (meterInterval(state, audio: audio) ?? 0) - 0.001 {
            meters.mic = Self.reading(audio.capture?.levels())
            meters.speaker = Self.reading(audio.playback?.levels())
            lastMeterDraw = now
        }
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
