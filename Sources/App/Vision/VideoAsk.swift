import Foundation
import Live
import ParleyTime

/// The recorded-video side of `parley ask --video`: the clip is streamed in real time (the service takes one
/// frame a second, and its audio is the user's speech as it happens), then the question is asked.
///
/// With sound, the clip is one spoken turn (`activityStart`, frames and audio, `activityEnd`), which the model
/// answers like any turn; the question follows once that answer is complete. Without sound the frames go out
/// alone and the question follows them at once. Either way the model has seen every frame when it answers.
enum VideoAsk {
    /// What ask prints for the clip: a transcript line, or a JSON event.
    static func line(for clip: VideoClip, json: Bool) -> String {
        guard json else { return "[video] \(clip.summary)\n" }
        let fields: [String: JSONValue] = [
            "event": "video", "file": .string(clip.fileName), "frames": .number(Double(clip.frames.count)),
            "width": .number(Double(clip.width)), "height": .number(Double(clip.height)),
            "audioSeconds": .number(Double(clip.audio.count) / Double(LiveAudioFormat.inputSampleRate * 2)),
        ]
        return JSONValue.object(fields).compactText + "\n"
    }

    /// Streams `clip` in real time on `time`; `afterImages` waits a second first (images just went out), and
    /// `then` runs once the last frame and chunk are on the wire.
    static func stream(_ clip: VideoClip, over session: LiveSession, time: TimeSource = .monotonic, afterImages: Bool,
                       then done: @escaping @Sendable () -> Void) {
        Task {
            if afterImages { try? await Task.sleep(for: FramePacer.interval) }
            let wire = VideoWire(session: session, time: time)
            let spoken = !clip.audio.isEmpty
            if spoken { session.activityStart() }
            let start = time.now()
            let bytesPerSecond = LiveAudioFormat.inputSampleRate * 2
            let chunk = bytesPerSecond / 50
            var nextFrame = 0, audioSent = 0, tick = 0
            while nextFrame < clip.frames.count || audioSent < clip.audio.count {
                let seconds = time.now() - start
                let elapsed = Duration.seconds(clamping: seconds)
                if nextFrame < clip.frames.count, elapsed >= .seconds(nextFrame) {
                    // A frame the wire refuses (too soon after the last, or no connection) is tried on the next
                    // tick, and given up after three seconds so a lost connection cannot hold the clip forever.
                    if wire.send(clip.frames[nextFrame], at: wire.now()) || elapsed > .seconds(nextFrame + 3) { nextFrame += 1 }
                }
                let due = min(clip.audio.count, Int(seconds * Double(bytesPerSecond)) / chunk * chunk + chunk)
                while audioSent < due {
                    let end = min(audioSent + chunk, clip.audio.count)
                    session.sendAudio(clip.audio.subdata(in: audioSent..<end))
                    audioSent = end
                }
                tick += 1
                try? await Task.sleep(for: .seconds(clamping: start + 0.1 * Double(tick) - time.now()))
            }
            if spoken { session.activityEnd() }
            done()
        }
    }
}
