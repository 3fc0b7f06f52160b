import ParleyLock
import Synchronization

/// Echo cancellation inside parley: WebRTC's canceller on the capture path, with what the playback stream
/// writes as the far end. The model's voice coming back through the microphone is removed before the mic
/// audio is sent, so the mic can stay open while the model speaks (full duplex) and a spoken barge-in reaches
/// the service's voice detection.
///
/// The playback thread reports every block it writes (`played`, with when it will be heard, from PulseAudio's
/// latency) and every flush; the far end is resampled to the capture rate and placed on a timeline. The
/// capture thread hands each chunk to `process` with when it was captured (from the capture latency); each
/// 10 ms frame is processed with the far end heard `lookahead` earlier, and that lookahead is reported to the
/// canceller as the delay. The canceller's own delay estimation (delay-agnostic mode) absorbs what the
/// latency figures get wrong and the room adds.
///
/// Threading: `played` and `playbackFlushed` from the playback thread, `process` from the capture thread;
/// everything else from any thread.
public final class WebRTCCanceller: Sendable {
    /// How the canceller is set up.
    public struct Settings: Sendable, Hashable {
        /// WebRTC's processing (echo, noise, gain).
        public var processing = WebRTCAudioProcessing.Settings()
        /// The capture format (mono).
        public var captureFormat = AudioFormat.capture
        /// The playback format (mono).
        public var playbackFormat = AudioFormat.playback
        /// How much earlier than each near-end frame the far end is taken at first, in ms. An echo that reaches
        /// the mic `d` ms after the latency figures say its far end is heard sits `d` minus this behind the far
        /// end the canceller is given, and the canceller wants it 0–90 ms behind (see
        /// `realignLateThresholdMilliseconds`). `d` was 40 ms on the PulseAudio loopback rig (80 after playback
        /// restarts) and under 20 on PipeWire's in two CI runs of three: with 40 or 20 here the echo came out
        /// ahead of its far end and the far end was re-pointed, restarting the canceller's convergence; with 0
        /// every `d` seen lands inside. The delay estimator moves it later if the echo is later still.
        public var lookaheadMilliseconds = 0
        /// Where the estimator puts the echo behind the far end it is given, in ms: inside the range the
        /// canceller tracks by itself (about 0–100 ms), with room on both sides.
        public var targetEchoDelayMilliseconds = 30
        /// Re-point the far end when the echo is found more than this much earlier than the target, in ms: any
        /// earlier and it would reach the microphone before its far end reaches the canceller.
        public var realignEarlyThresholdMilliseconds = 30
        /// Or more than this much later than the target, in ms. The canceller holds 42–50 dB ERLE with the echo
        /// 5–90 ms behind the far end it is given, and 17–19 dB at 110–130 ms (`EchoScenario`, re-pointing off), so
        /// the echo may wander this far (placed again after playback restarts, a few tens of ms off) before a
        /// re-point, which restarts the canceller's convergence, is worth it.
        public var realignLateThresholdMilliseconds = 60
        /// How much far-end audio (seconds) the canceller must have heard, since it started or was re-pointed,
        /// before it counts as converged (the offline benchmark reaches 25–45 dB ERLE after 2 s).
        public var convergenceSeconds = 2.0
        /// The delay reported to the canceller, in ms (its delay-agnostic mode mostly finds its own).
        public var reportedDelayMilliseconds = 30
        /// Zero crossings each side of the far end's resampling filter (playback rate to capture rate): 9, the longest
        /// filter whose phases are four vectors of eight (30 taps from 24 to 16 kHz, against 54 at the resampler's 16):
        /// a fifth fewer instructions for every block played (225 k → 180 k a 100 ms block in the conversation
        /// benchmark; the rest is a dot product's fixed cost per output). What the canceller cannot model is what
        /// aliases: 52 dB below the band kept on speech (75 dB with 16), under any echo it removes (25–50 dB); the
        /// filter's wider roll-off above 6 kHz is a fixed response the adaptive filter learns as part of the echo path,
        /// and ERLE offline was the same to 0.1 dB.
        public var farEndZeroCrossings = 9

        /// The defaults: 16 kHz capture, 24 kHz playback, echo cancellation with a high-pass filter.
        public init() {}
    }

    /// Counters and the canceller's own view.
    public struct Statistics: Sendable, Hashable {
        /// 10 ms near-end frames processed.
        public var framesProcessed = 0
        /// Near-end frames in which the far end was playing.
        public var framesWithFarEnd = 0
        /// Near-end frames passed through as captured because nothing had played or was queued for a while
        /// (`idleAfterFrames`).
        public var framesPassedIdle = 0
        /// CPU time spent in processing (both ends, on the capture thread), in seconds; frames passed through
        /// idle are not timed.
        public var processingSeconds: Double = 0
        /// Audio processed, in seconds.
        public var audioSeconds: Double = 0
        /// Frames passed on unprocessed because the library rejected them.
        public var failures = 0
        /// How much earlier than each near-end frame the far end is taken now, in ms.
        public var farOffsetMilliseconds = 0
        /// Times the delay estimator re-pointed the far end.
        public var realignments = 0
        /// Near-end frames with far end since the canceller started or was last re-pointed.
        public var framesAdapted = 0
        /// The canceller's metrics, updated once a second of audio.
        public var metrics: WebRTCAudioProcessing.Metrics?

        /// The processing CPU as a fraction of one core (0.01: 1 %).
        public var cpuFraction: Double { audioSeconds > 0 ? processingSeconds / audioSeconds : 0 }

        /// One line for the log: how well it cancels now and how it got there (a reply heard cutting itself off
        /// is diagnosed from these).
        public var summary: String {
            func db(_ v: Double?) -> String { v.map { String(format: "%.1f dB", $0) } ?? "unknown" }
            let delay = metrics?.delayMilliseconds.map { "\($0) ms" } ?? "unknown"
            return "ERLE \(db(metrics?.erleDB)), ERL \(db(metrics?.erlDB)), delay \(delay), far end \(farOffsetMilliseconds) ms "
                + "ahead, \(realignments) re-points, \(framesAdapted) frames adapted since, \(framesWithFarEnd) with far end "
                + "and \(framesPassedIdle) passed idle of \(framesProcessed), \(failures) refused"
        }
    }

    private struct FarSide {
        var resampler: StreamingResampler
        var timeline: FarEndTimeline
        var inputPosition = 0  // input samples given to the resampler since its last reset
        var expectedNext: UInt64?  // when the block after the last one would be heard, if contiguous
    }

    private struct NearSide {
        let processor: WebRTCAudioProcessing
        var clock = CaptureClock()
        var estimator = EchoDelayEstimator()
        var offsetMilliseconds: Int
        var candidateLag: Int?  // the last estimate, waiting for one that agrees
        var stats = Statistics()
        var far: [Int16]
        var near: [Int16]
        var nextMetricsFrame = 100
        /// Frames in a row whose far end was silent with nothing queued to play: past `idleAfterFrames` nothing can
        /// echo, and frames pass through unprocessed (the filter keeps what it learned).
        var quietFarFrames = Int.max
    }

    /// How many quiet far-end frames in a row before the mic passes through unprocessed. Until the canceller
    /// has converged (the echo's place is not known yet): a second, longer than any room's echo path and the
    /// delay estimator's window. Once it has, the echo of the last far frame given starts within the target
    /// delay plus the late re-pointing threshold, the adaptive filter models its first 128 ms (48 without the
    /// extended filter), and 100 ms more cover the room's reverberation past the filter, which the
    /// suppressor removes: about 0.3 s. In the conversation benchmark the one-second tail was about a third
    /// of the frames processed.
    static func idleAfterFrames(converged: Bool, settings: Settings) -> Int {
        guard converged else { return 100 }
        let filterMilliseconds = settings.processing.extendedFilter ? 128 : 48
        let reach = settings.targetEchoDelayMilliseconds + settings.realignLateThresholdMilliseconds + filterMilliseconds + 100
        return min(100, (reach + 9) / 10)
    }

    /// The settings it was created with.
    public let settings: Settings
    private let far: Locked<FarSide>
    private let near: Locked<NearSide>
    private let active = Atomic<Bool>(true)

    /// Creates the canceller; throws if WebRTC's processing cannot be created (then fall back to gating).
    public init(settings: Settings = Settings()) throws(PulseAudioError) {
        var processing = settings.processing
        processing.sampleRate = settings.captureFormat.sampleRate
        let processor = try WebRTCAudioProcessing(settings: processing)
        self.settings = settings
        let rate = settings.captureFormat.sampleRate
        far = Locked(FarSide(resampler: StreamingResampler(from: settings.playbackFormat.sampleRate, to: rate,
                                                                zeroCrossings: settings.farEndZeroCrossings),
                            timeline: FarEndTimeline(sampleRate: rate)))
        let frame = processor.frameSamples
        near = Locked(NearSide(processor: processor, offsetMilliseconds: settings.lookaheadMilliseconds,
                              far: [Int16](repeating: 0, count: frame),
                              near: [Int16](repeating: 0, count: frame)))
    }

    /// Whether chunks are processed. Off (push-to-talk), `process` passes the mic through and the far end is
    /// not recorded; on again, the canceller re-adapts within a few seconds of far-end audio.
    public var isActive: Bool {
        get { active.load(ordering: .relaxed) }
        set {
            active.store(newValue, ordering: .relaxed)
            if !newValue {
                near.withLock { $0.stats.framesAdapted = 0 }
                far.withLock { f in
                    f.timeline.flush(at: 0)
                    f.expectedNext = nil
                }
            }
        }
    }

    /// Whether the canceller has heard enough of the far end to be trusted with full duplex; until then the
    /// half-duplex gate should guard the mic (the first reply's first seconds would otherwise leak).
    public var isConverged: Bool {
        let needed = framesToConverge
        return near.withLock { $0.stats.framesAdapted >= needed }
    }

    /// Far-end frames heard before the canceller counts as converged.
    private var framesToConverge: Int { Int(settings.convergenceSeconds * 100) }

    /// What the header says while this canceller protects the mic.
    public var protection: HalfDuplexGate.Protection { .canceller }

    /// The playback thread wrote `samples` (at the playback rate), first heard at `heardFrom` (ns, monotonic).
    public func played(_ samples: UnsafeBufferPointer<Int16>, heardFrom: UInt64) {
        guard isActive, !samples.isEmpty else { return }
        let inRate = Double(settings.playbackFormat.sampleRate)
        let duration = UInt64(Double(samples.count) / inRate * 1e9)
        far.withLock { f in
            let contiguous = f.expectedNext.map { e in
                (heardFrom > e ? heardFrom - e : e - heardFrom) <= UInt64(f.timeline.snapTolerance)
            } ?? false
            if !contiguous {
                f.resampler.reset()
                f.inputPosition = 0
            }
            let blockStart = f.inputPosition
            let (out, position) = f.resampler.process(samples)
            f.inputPosition += samples.count
            f.expectedNext = heardFrom + duration
            guard !out.isEmpty else { return }
            // The resampler lags by its half length: its first output belongs slightly before this block.
            let offset = (position - Double(blockStart)) / inRate * 1e9
            let at = Double(heardFrom) + offset
            f.timeline.append(out, heardFrom: UInt64(max(0, at)))
        }
    }

    /// The far end as placed, at the capture rate: `count` samples heard from `time` (ns) on, silence where
    /// nothing plays. Tests compare it with what the speaker played; reading forgets what was heard before `time`.
    func farEnd(from time: UInt64, count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count)
        out.withUnsafeMutableBufferPointer { b in far.withLock { $0.timeline.read(into: b, from: time) } }
        return out
    }

    /// The playback stream was flushed at `time` (ns): nothing written is heard after it.
    public func playbackFlushed(at time: UInt64) {
        far.withLock { f in
            f.timeline.flush(at: time)
            f.expectedNext = nil
        }
    }

    /// Removes the echo from a captured chunk in place. `capturedFrom` (ns, monotonic) is when its first
    /// sample reached the microphone (read time minus capture latency minus the chunk's length). Whole 10 ms
    /// frames are processed; a remainder (chunks that are not a multiple of 10 ms) is passed through.
    public func process(_ samples: inout [Int16], capturedFrom: UInt64) {
        guard isActive else { return }
        let format = settings.captureFormat
        // Timed from the first frame WebRTC processes, so a chunk passed through idle (the open mic between
        // replies) makes no `CLOCK_THREAD_CPUTIME_ID` system call.
        var cpuStart: UInt64?
        let convergedFrames = framesToConverge
        near.withLock { n in
            let frame = n.processor.frameSamples
            let start = n.clock.chunkStart(estimate: capturedFrom, duration: format.duration(sampleCount: samples.count))
            var offset = 0
            while offset + frame <= samples.count {
                let frameTime = start + UInt64(format.duration(sampleCount: offset) * 1e9)
                let lookahead = UInt64(n.offsetMilliseconds) * 1_000_000
                let farFrom = frameTime > lookahead ? frameTime - lookahead : 0
                n.far.withUnsafeMutableBufferPointer { buffer in
                    far.withLock { f in f.timeline.read(into: buffer, from: farFrom) }
                }
                if n.far.contains(where: { $0 != 0 }) {
                    n.stats.framesWithFarEnd += 1
                    n.stats.framesAdapted += 1
                    n.quietFarFrames = 0
                } else if far.withLock({ $0.timeline.count > 0 }) {
                    // A reply is queued but not heard yet: process from now on, so the canceller is running
                    // (on silence) when its first echo arrives.
                    n.quietFarFrames = 0
                } else if n.quietFarFrames < Int.max {
                    n.quietFarFrames += 1
                }
                let converged = n.stats.framesAdapted >= convergedFrames
                if n.quietFarFrames > Self.idleAfterFrames(converged: converged, settings: settings) {
                    // Nothing played or queued for a while: no echo to remove, the mic passes as captured.
                    n.stats.framesPassedIdle += 1
                    n.stats.framesProcessed += 1
                    n.stats.audioSeconds += format.duration(sampleCount: frame)
                    offset += frame
                    continue
                }
                if cpuStart == nil { cpuStart = ThreadCPUTime.nanoseconds() }
                track(&n, nearFrame: samples[offset..<(offset + frame)])
                let ok = processFrame(&n, samples: &samples, offset: offset, frame: frame)
                if !ok { n.stats.failures += 1 }
                n.stats.framesProcessed += 1
                n.stats.audioSeconds += format.duration(sampleCount: frame)
                offset += frame
            }
            if n.stats.framesProcessed >= n.nextMetricsFrame {
                // Once a second of audio: the library aggregates its metrics over that period.
                n.nextMetricsFrame = n.stats.framesProcessed + 100
                n.stats.metrics = n.processor.metrics
            }
            n.stats.farOffsetMilliseconds = n.offsetMilliseconds
            if let cpuStart { n.stats.processingSeconds += Double(ThreadCPUTime.nanoseconds() - cpuStart) / 1e9 }
        }
    }

    /// Feeds the delay estimator and re-points the far end when the echo is found off target.
    private func track(_ n: inout NearSide, nearFrame: ArraySlice<Int16>) {
        let estimator = n.estimator
        let farLevel = n.far.withUnsafeBufferPointer { estimator.level($0) }
        let nearLevel = nearFrame.withUnsafeBufferPointer { estimator.level($0) }
        guard let lag = n.estimator.add(farLevel: farLevel, nearLevel: nearLevel) else { return }
        // Two estimates in a row that agree, so one spurious peak (double talk, a pause) moves nothing; the one
        // nearer the target decides, so an echo on the edge (estimates a frame either side of it: 0 then -1 on
        // the loopback rig, where the canceller held 30–60 dB) is not re-pointed.
        let previous = n.candidateLag
        n.candidateLag = lag
        guard let previous, abs(previous - lag) <= 2 else { return }
        let target = settings.targetEchoDelayMilliseconds
        let (a, b) = (previous * 10 - target, lag * 10 - target)
        let error = abs(a) < abs(b) ? a : b
        guard error < -settings.realignEarlyThresholdMilliseconds || error > settings.realignLateThresholdMilliseconds else { return }
        // The far end is never taken from ahead of when it is heard: an echo found ahead of it with the offset at
        // 0 is left where it is (re-pointing to the same place would only restart the canceller's convergence).
        let offset = min(max(0, n.offsetMilliseconds + error), 1000)
        guard offset != n.offsetMilliseconds else { return }
        n.offsetMilliseconds = offset
        n.estimator.reset()
        n.candidateLag = nil
        n.stats.realignments += 1
        n.stats.framesAdapted = 0
    }

    /// One far frame then one near frame; false if the library refused (the near frame is left as captured).
    private func processFrame(_ n: inout NearSide, samples: inout [Int16], offset: Int, frame: Int) -> Bool {
        let processor = n.processor
        do throws(PulseAudioError) {
            try n.far.withUnsafeBufferPointer { b throws(PulseAudioError) in try processor.analyzeFarEnd(b) }
            for k in 0..<frame { n.near[k] = samples[offset + k] }
            try n.near.withUnsafeMutableBufferPointer { b throws(PulseAudioError) in
                try processor.processNearEnd(b, delayMilliseconds: settings.reportedDelayMilliseconds)
            }
            for k in 0..<frame { samples[offset + k] = n.near[k] }
            return true
        } catch {
            return false
        }
    }

    /// Counters so far.
    public var statistics: Statistics { near.withLock { $0.stats } }
}

