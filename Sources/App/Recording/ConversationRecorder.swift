import Conversation
import Dispatch
import ParleyTime
import PulseAudio
import ParleyLock

/// The conversation's sound as it happened, one file beside its transcript: the mic as sent on the left, the
/// model as played on the right. The audio threads hand their samples over (`mic`, `model`, `modelCut`)
/// without waiting: a serial writer queue places them on a `RecordingTimeline` and writes the frames out,
/// and a backlog past `maxBacklogSeconds` is dropped and reported instead of growing. The main loop starts,
/// stops and closes it, and asks each transcript record's offset into the sound.
final class ConversationRecorder: Sendable {
    /// The transcript's path without `.jsonl`: the recording takes the same name.
    let base: String
    let format: RecordingFormat
    private let time: TimeSource
    private let report: @Sendable (RecordingEvent) -> Void
    private let opener: @Sendable (RecordingFormat, String) throws -> any RecordingOutput
    private let clock = Locked(Clock())
    private let writer: Locked<Writer>
    private let queue = DispatchQueue(label: "parley-recorder")

    /// Sound waiting for the writer beyond this is dropped (and reported once): the audio threads never wait.
    static let maxBacklogSeconds = 10.0
    /// A mic chunk may reach the recorder this late after it was captured; frames older than this are final.
    static let settleSeconds = 0.25
    /// A mic chunk louder than this starts the user's speech (the offset a `user` record gets).
    static let speechDBFS = -45.0

    /// The producer side, shared by the audio threads and the main loop.
    private struct Clock {
        var running = false
        var opened: String?
        var failed = false
        /// The time at frame 0 (moved on at each start so a paused stretch leaves no gap).
        var origin = 0.0
        var pausedFrame = 0
        /// Where the next model sample plays: reply audio queues behind what is still playing.
        var modelNext = 0
        /// The next model audio begins a reply (after a turn's end, a flush or a cut).
        var newReply = true
        var replyStart: Int?
        var userSpeechStart: Int?
        /// Frames handed to the writer and not yet placed.
        var backlog = 0
        var lost = 0
        var behindReported = false
        var suspendedWhileRunning = false

        func frame(at t: Double) -> Int { Int(((t - origin) * Double(RecordingTimeline.rate)).rounded()) }
        /// Frames before this are final at `t`: no mic chunk captured earlier is still on its way.
        func settled(at t: Double) -> Int { frame(at: t - ConversationRecorder.settleSeconds) }
    }

    /// The writer queue's side.
    private struct Writer: @unchecked Sendable {
        var timeline = RecordingTimeline()
        var output: (any RecordingOutput)?
        var failed = false
    }

    private enum Item: Sendable {
        case mic([Int16], frame: Int)
        case model([Int16], frame: Int)
        case cut(frame: Int)
    }

    init(base: String, format: RecordingFormat, time: TimeSource,
         opener: @escaping @Sendable (RecordingFormat, String) throws -> any RecordingOutput = { try $0.open(base: $1) },
         report: @escaping @Sendable (RecordingEvent) -> Void) {
        self.base = base
        self.format = format
        self.time = time
        self.opener = opener
        self.report = report
        writer = Locked(Writer())
    }

    /// Whether sound is being recorded now.
    var isRecording: Bool { clock.withLock { $0.running } }
    /// The file, once recording has started.
    var path: String? { clock.withLock { $0.opened } }

    // MARK: - The main loop

    /// Starts (or goes on) recording: the file opens on the first start.
    func start() -> RecordingEvent {
        let (opened, failed) = clock.withLock { ($0.opened, $0.failed) }
        if failed { return .failed(RecordingFailure(message: "the recording stopped earlier in this conversation", hint: "restart parley to record again")) }
        var path = opened
        if path == nil {
            let (format, base, opener) = (format, base, opener)
            let result: Result<String, RecordingFailure> = queue.sync {
                writer.withLock { w in
                    do {
                        let output = try opener(format, base)
                        w.output = output
                        return .success(output.path)
                    } catch {
                        w.failed = true
                        return .failure(error as? RecordingFailure
                            ?? RecordingFailure(message: "cannot start the recording: \(error)", hint: "the transcript goes on being saved"))
                    }
                }
            }
            switch result {
            case .success(let p): path = p
            case .failure(let f):
                clock.withLock { $0.failed = true }
                return .failed(f)
            }
        }
        let now = time.now()
        let file = path ?? base
        clock.withLock { c in
            c.opened = file
            guard !c.running else { return }
            c.origin = now - Double(c.pausedFrame) / Double(RecordingTimeline.rate)
            c.modelNext = max(c.modelNext, c.pausedFrame)
            c.newReply = true
            c.running = true
        }
        return .started(path: file)
    }

    /// Pauses: what was heard so far is written out and the file made whole; later sound waits for `start`.
    func stop() -> RecordingEvent? {
        let now = time.now()
        let stopped: Int? = clock.withLock { c in
            guard c.running else { return nil }
            c.running = false
            c.pausedFrame = c.frame(at: now)
            return c.pausedFrame
        }
        guard let frame = stopped, let path else { return nil }
        queue.sync { writer.withLock { w in flush(&w, upTo: frame, final: true) } }
        return .stopped(path: path)
    }

    /// Ctrl-Z: the file is made whole before the process stops; `resumeAfterSuspend` goes on after `fg`.
    func suspend() {
        let running = isRecording
        _ = stop()
        clock.withLock { $0.suspendedWhileRunning = running }
    }

    func resumeAfterSuspend() {
        guard clock.withLock({ c in defer { c.suspendedWhileRunning = false }; return c.suspendedWhileRunning }) else { return }
        _ = start()
    }

    /// Writes out what was heard and finishes the file (every exit path comes here). Safe to call more than once.
    func close() {
        _ = stop()
        let failure: RecordingFailure? = queue.sync {
            writer.withLock { w in
                guard let output = w.output else { return nil }
                w.output = nil
                do throws(RecordingFailure) {
                    try output.close()
                    return nil
                } catch {
                    return w.failed ? nil : error
                }
            }
        }
        if let failure { report(.failed(failure)) }
    }

    /// The offset into the recording a transcript record of `kind` gets, in seconds: a `user` line the start of
    /// the speech it transcribes, a `model` line the start of its reply's sound, anything else now. Nil while
    /// nothing is being recorded.
    func offset(for kind: TranscriptRecord.Kind) -> Double? {
        let now = time.now()
        let frame: Int? = clock.withLock { c in
            guard c.running else { return nil }
            let current = c.frame(at: now)
            switch kind {
            case .user:
                defer { c.userSpeechStart = nil }
                return c.userSpeechStart ?? current
            case .model:
                return c.replyStart ?? current
            default:
                return current
            }
        }
        return frame.map { (Double($0) / Double(RecordingTimeline.rate) * 100).rounded() / 100 }
    }

    // MARK: - The audio threads

    /// A mic chunk as it was sent (capture thread). Never waits.
    func mic(_ chunk: AudioChunk) {
        let started = Double(chunk.timestamp) / 1e9 - Double(chunk.samples.count) / Double(RecordingTimeline.micRate)
        let loud = chunk.level.rmsDBFS > Self.speechDBFS
        let frames = chunk.samples.count * RecordingTimeline.rate / RecordingTimeline.micRate
        let now = time.now()
        let placed: (Int, Int)? = clock.withLock { c in
            guard c.running, admit(&c, frames) else { return nil }
            let f = c.frame(at: started)
            if loud, c.userSpeechStart == nil { c.userSpeechStart = max(0, f) }
            return (f, c.settled(at: now))
        }
        if let (frame, settled) = placed { enqueue(.mic(chunk.samples, frame: frame), frames: frames, settled: settled) }
    }

    /// Reply audio as it was handed to the speaker (receive path): it plays after what is still queued.
    func model(_ samples: [Int16]) {
        let now = time.now()
        let placed: (Int, Int)? = clock.withLock { c in
            guard c.running, admit(&c, samples.count) else { return nil }
            let f = max(c.modelNext, c.frame(at: now))
            if c.newReply {
                c.replyStart = f
                c.newReply = false
            }
            c.modelNext = f + samples.count
            return (f, c.settled(at: now))
        }
        if let (frame, settled) = placed { enqueue(.model(samples, frame: frame), frames: samples.count, settled: settled) }
    }

    /// The speaker went quiet now (barge-in, a cut reply): reply audio queued after this was never heard.
    func modelCut() {
        let now = time.now()
        let placed: (Int, Int)? = clock.withLock { c in
            c.newReply = true
            guard c.running else { return nil }
            let f = c.frame(at: now)
            c.modelNext = min(c.modelNext, f)
            return (f, c.settled(at: now))
        }
        if let (frame, settled) = placed { enqueue(.cut(frame: frame), frames: 0, settled: settled) }
    }

    /// The reply's last audio is queued: the next audio begins another reply.
    func replyEnded() { clock.withLock { $0.newReply = true } }

    /// Counts `frames` into the backlog, or drops them when the writer is too far behind.
    private func admit(_ c: inout Clock, _ frames: Int) -> Bool {
        if c.failed { return false }
        if Double(c.backlog + frames) > Self.maxBacklogSeconds * Double(RecordingTimeline.rate) {
            c.lost += frames
            if !c.behindReported {
                c.behindReported = true
                let lost = Double(c.lost) / Double(RecordingTimeline.rate)
                report(.fellBehind(seconds: lost))
            }
            return false
        }
        c.backlog += frames
        return true
    }

    /// Hands `item` to the writer with the frame before which nothing more can land (`settled`, taken when the
    /// item was: the writer may run it after a pause).
    private func enqueue(_ item: Item, frames: Int, settled: Int) {
        queue.async { [self] in
            clock.withLock { $0.backlog -= frames }
            writer.withLock { w in
                guard !w.failed else { return }
                switch item {
                case .mic(let s, let f): w.timeline.putMic(s, at: f)
                case .model(let s, let f): w.timeline.putModel(s, at: f)
                case .cut(let f): w.timeline.cutModel(from: f)
                }
                flush(&w, upTo: settled, final: false)
            }
        }
    }

    /// Writes the frames up to `frame` (runs on the writer queue); a failure stops the recording for good.
    private func flush(_ w: inout Writer, upTo frame: Int, final: Bool) {
        guard !w.failed, let output = w.output else { return }
        do throws(RecordingFailure) {
            while true {
                let frames = w.timeline.take(upTo: frame)
                if frames.isEmpty { break }
                try output.write(frames)
            }
            if final { output.checkpoint() }
        } catch {
            w.failed = true
            w.output = nil
            clock.withLock { $0.failed = true; $0.running = false }
            report(.failed(error))
        }
    }
}
