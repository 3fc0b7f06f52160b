import PulseAudio

/// The recording's two channels on one time line at `rate`: the mic as sent on the left, the model as played on
/// the right, silence wherever a side is quiet. A value the recorder's writer owns: it places each side's
/// samples at their frame and hands out whole interleaved frames once nothing can land before them any more.
/// Model audio queued ahead of the speaker stays here until it is played or cut (`cutModel`).
struct RecordingTimeline {
    /// Frames per second of the file (the model's rate; the mic's 16 kHz is brought up to it).
    static let rate = 24_000
    static let micRate = 16_000
    /// A mic chunk this close to where the last one ended continues it (capture stamps jitter by a few ms).
    static let micJoinFrames = rate / 20

    enum Channel { case mic, model }

    /// Frames handed out so far.
    private(set) var written = 0
    /// Frames from `written` on, per channel (shorter arrays are silence after their end).
    private var mic: [Int16] = []
    private var model: [Int16] = []
    /// Where the next mic sample goes when the chunk continues the last one, and the resampler that joins them.
    private var micNext: Int?
    private var upsampler = StreamingResampler(from: micRate, to: rate)

    /// Frames waiting to be handed out (held model audio included): the writer's backlog.
    var pending: Int { max(mic.count, model.count) }

    /// A chunk of the mic (16 kHz) that began at `frame`; a chunk that continues the last one is joined to it
    /// without a click, one after a gap starts a new stretch.
    mutating func putMic(_ samples: [Int16], at frame: Int) {
        var start = frame
        if let next = micNext, abs(frame - next) <= Self.micJoinFrames {
            start = next
        } else {
            upsampler.reset()
        }
        let up = samples.withUnsafeBufferPointer { upsampler.process($0).samples }
        put(up, into: &mic, at: start)
        micNext = start + up.count
    }

    /// Model audio (24 kHz) as it reaches the speaker at `frame`.
    mutating func putModel(_ samples: [Int16], at frame: Int) {
        put(samples, into: &model, at: frame)
    }

    /// The model went quiet at `frame` (barge-in, a cut reply): what was queued after it was never heard.
    mutating func cutModel(from frame: Int) {
        let keep = max(0, frame - written)
        if model.count > keep { model.removeLast(model.count - keep) }
    }

    /// Interleaved stereo frames from `written` up to `frame` (at most `limit` of them), silence where a side
    /// has nothing; they leave the time line.
    mutating func take(upTo frame: Int, limit: Int = rate) -> [Int16] {
        let n = min(max(0, frame - written), limit)
        guard n > 0 else { return [] }
        var out = [Int16](repeating: 0, count: 2 * n)
        for i in 0..<min(n, mic.count) { out[2 * i] = mic[i] }
        for i in 0..<min(n, model.count) { out[2 * i + 1] = model[i] }
        mic.removeFirst(min(n, mic.count))
        model.removeFirst(min(n, model.count))
        written += n
        return out
    }

    private func put(_ samples: [Int16], into channel: inout [Int16], at frame: Int) {
        // What would land before the frames already handed out is too late to keep.
        let skip = max(0, written - frame)
        guard skip < samples.count else { return }
        let offset = frame + skip - written
        let end = offset + samples.count - skip
        if channel.count < end { channel.append(contentsOf: repeatElement(0, count: end - channel.count)) }
        for i in skip..<samples.count { channel[offset + i - skip] = samples[i] }
    }
}
