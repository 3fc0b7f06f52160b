import Conversation
import TUI

#if canImport(Glibc)
import Glibc
#endif

/// Made-up levels for the meters, where parley reads the sound devices': the room's murmur, a voice while the
/// mic is open, the reply while the demo "plays" it.
struct DemoMeters {
    private var micPeak = PeakHold(), speakerPeak = PeakHold()

    mutating func apply(to ui: inout UIState, state: AppState, speaking: Bool, now: Double) {
        let mic = state.micOpen ? -18 + 12 * sin(now * 7) : -52 + 4 * sin(now * 3)
        ui.meters.mic = LevelReading(level: mic, peak: micPeak.update(level: mic, now: now), clipped: mic > -1)
        guard speaking else {
            ui.meters.speaker = LevelReading()
            return
        }
        let speaker = -24 + 16 * sin(now * 2.3)
        ui.meters.speaker = LevelReading(level: speaker, peak: speakerPeak.update(level: speaker, now: now), clipped: speaker > -9)
    }
}
