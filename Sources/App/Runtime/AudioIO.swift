import Conversation
import Foundation
import Live
import Logging
import ParleyTime
import PulseAudio
import ParleyLock

/// The audio side of a conversation: mic chunks go straight from the capture thread to the Live session,
/// reply audio straight from the receive path to the playback thread. Nothing here waits for the main loop.
final class AudioIO: Sendable {
    let capture: (any AudioSource)?
    let playback: (any AudioSink)?
    let echoModule: PulseEchoModule?
    /// parley's own echo canceller (WebRTC), between playback and capture; nil if not wanted or unavailable.
    let canceller: WebRTCCanceller?
    private let echoMode: EchoCancelMode
    /// The configured playback buffer (`playback_buffer_ms`).
    private let playbackBufferMs: Int
    private let state: Locked<Shared>
    private let events: EventQueue
    /// The app's clock, for the first-audio stamp the reducer compares with its own `now`.
    private let time: TimeSource
    private let log = Logger(label: "parley.audio")

    /// Registers the reducer sets through commands, read on the capture and receive paths.
    struct Shared {
        var session: LiveSession?
        /// Takes the mic as sent and the model as played, when the conversation is recorded.
        var recorder: ConversationRecorder?
        var halfDuplex: HalfDuplexGate
        /// The gate applies while the mic is open in open-mic mode (`MicCommand.open(for: .open)`).
        var halfDuplexOn = false
        var modelAnswering = false
        /// Drop reply audio (`SpeakerCommand.cutReply`) until told otherwise.
        var discarding = false
        /// Reports the first audio of each reply once (an edge of the audio stream, not a decision).
        var awaitingFirstAudio = true
        /// The close whose last chunk has not been handed over yet.
        var pendingClose: Int?
        /// 20 ms frames around sound, 100 ms while the room is silent (open mic only).
        var framing = MicFraming()
        /// The last chunk was louder than the room: the meters draw at 20 fps (`ScreenPacer`).
        var micAboveRoom = false
    }

    /// The least playback buffer (`tlength`) the echo canceller works with on PulseAudio.
    static let cancellerPlaybackBufferMs = 80
    /// The same on PipeWire's server, which grants 30 ms for 20 or 40 and plays a reply's first sample 45 ms
    /// after the write with 80 (16–20 ms with 40; PulseAudio 2–5 ms with any).
    static let cancellerPlaybackBufferMsPipeWire = 40

    /// The server buffer for playback: the configured one, and while WebRTC's canceller works (open mic on
    /// speakers) at least 80 ms on PulseAudio, which loses the echo with a 20 ms sink (EchoEndToEndTests), or
    /// 40 ms on PipeWire: there the test passes with 40 as often as with 80 (5 of 5 each, interleaved, on one
    /// daemon; the first run on a freshly started daemon fails with either), and 80 made wire→ear 33 ms against
    /// the cookbook client's 14 (`scripts/bench-peers.sh`, BENCH_SERVER=pipewire). Push-to-talk and headphones
    /// keep the configured 20 ms, changed as the talk mode changes.
    static func playbackBuffer(_ configured: Int, cancelling: Bool, pipeWire: Bool) -> Int {
        guard cancelling else { return configured }
        return max(configured, pipeWire ? cancellerPlaybackBufferMsPipeWire : cancellerPlaybackBufferMs)
    }

    /// What could not be opened, in words for the banner; nil when sound works.
    let problem: String?

    /// Opens the devices (the sink, then the source with its gate closed); a failure leaves the program
    /// running text-only with `unavailable` set.
    init(devices: SoundDevices, config: Config, events: EventQueue, time: TimeSource) {
        self.events = events
        self.time = time
        var problem = devices.problem
        var (capture, playback, module) = (devices.source, devices.sink, devices.echoModule)
        if problem == nil, let sink = playback {
            do {
                try sink.open()
            } catch {
                problem = Self.describe(error)
                (capture, playback) = (nil, nil)
                try? module?.unload()
                module = nil
            }
        }
        self.capture = capture
        self.playback = playback
        echoModule = module
        canceller = capture == nil ? nil : devices.canceller
        echoMode = config.echoCancel
        playbackBufferMs = config.playbackBufferMs
        self.problem = problem
        let protection = config.echoCancel.protection(openMic: true, hasCanceller: canceller != nil,
                                                      moduleMethod: module?.method)
        state = Locked(Shared(halfDuplex: HalfDuplexGate(protection: protection)))
        if let capture {
            do {
                try capture.open { [weak self] chunk in self?.captured(chunk) }
                capture.suspend()  // until the mic opens
            } catch {
                playback?.close()
                self.problemOverride.withLock { $0 = Self.describe(error) }
            }
        }
    }

    /// The full reason, with what to do, for the transcript.
    static func describe(_ error: any Error) -> String {
        if let e = error as? PulseAudioError { return "no sound: \(e.message) — \(e.hint)" }
        return "no sound: \(error)"
    }

    private let problemOverride = Locked<String?>(nil)
    /// The reason sound is off, if it is.
    var unavailable: String? { problemOverride.withLock { $0 } ?? problem }

    /// Which protection against the model hearing itself is active, for the meters line.
    var protectionDescription: String { state.withLock { $0.halfDuplex.protection.description } }

    static func report(_ e: AudioEvent, to events: EventQueue) {
        switch e {
        case .deviceLost(let kind, let device, let error):
            events.post(.audioNotice("\(kind) \(device ?? "default") went away (\(error)); reopening on the default device"))
        case .reopened(let kind, let device):
            events.post(.audioNotice("\(kind) reopened on \(device ?? "the default device")"))
        case .reopenFailed(let kind, let error):
            events.post(.audioNotice("\(kind) could not be reopened: \(error); retrying every second"))
        case .playbackFinished:
            break
        }
    }

    func attach(_ session: LiveSession) { state.withLock { $0.session = session } }
    func attach(_ recorder: ConversationRecorder) { state.withLock { $0.recorder = recorder } }

    /// The capture thread's consumer: gate → (half-duplex) → session; the chunk that closes the gate is
    /// reported so the wire follow-up (`activityEnd`, `audioStreamEnd`) leaves after it.
    private func captured(_ chunk: AudioChunk) {
        let now = Double(chunk.timestamp) / 1e9
        let playing = playback?.levels().rmsDBFS ?? -100
        let converged = canceller?.isConverged ?? true
        let aboveRoom = chunk.level.rmsDBFS > MicFraming.roomDBFS
        let (session, bytes, closed, recorder, rose) = state.withLock { s in
            s.halfDuplex.cancellerConverged = converged
            let rose = aboveRoom && !s.micAboveRoom
            s.micAboveRoom = aboveRoom
            let pass = !s.halfDuplexOn
                || s.halfDuplex.update(micDBFS: chunk.level.rmsDBFS, playbackDBFS: playing, modelAnswering: s.modelAnswering, at: now)
            var closed: Int?
            if chunk.endsGate { closed = s.pendingClose; s.pendingClose = nil }
            let bytes = pass ? s.framing.frame(chunk, batching: s.halfDuplexOn) : nil
            return (s.session, bytes, closed, pass ? s.recorder : nil, rose)
        }
        if let bytes, let session { session.sendAudio(Data(bytes)) }
        // The meters draw at 5 fps while the mic hears only the room: a voice starting wakes the loop, so the
        // bar moves with the first loud chunk.
        if rose { events.wake() }
        recorder?.mic(chunk)
        if let closed { events.post(.micClosed(id: closed)) }
    }

    /// Carries out a mic command from the reducer.
    func perform(_ command: MicCommand) {
        switch command {
        case .open(let mode):
            let openMic = mode == .open
            // The protection follows the talk mode: in open mic the canceller (or the gate) guards the mic.
            let protection = echoMode.protection(openMic: openMic, hasCanceller: canceller != nil, moduleMethod: echoModule?.method)
            canceller?.isActive = echoMode.cancellerActive(openMic: openMic)
            let buffer = Self.playbackBuffer(playbackBufferMs, cancelling: canceller?.isActive ?? false,
                                             pipeWire: playback?.serverIsPipeWire ?? false)
            playback?.setTargetLatency(milliseconds: buffer)
            state.withLock {
                $0.halfDuplexOn = openMic
                $0.halfDuplex.protection = protection
                $0.pendingClose = nil
                $0.framing.reset()
            }
            capture?.resume()
            capture?.setGate(open: true)
        case .close(let id):
            guard let capture, capture.isGateOpen else {
                events.post(.micClosed(id: id))
                return
            }
            state.withLock { $0.pendingClose = id }
            capture.setGate(open: false)
            capture.suspend()  // after the chunk that ends the gate
        }
    }

    /// Carries out a speaker command: from the reducer, or reply audio and interruptions straight from the
    /// Live receive path (interruption outranks audio: the flush happens on that thread, before anything else).
    func perform(_ command: SpeakerCommand) {
        switch command {
        case .play(let pcm):
            let (discard, first, recorder) = state.withLock { s -> (Bool, Bool, ConversationRecorder?) in
                defer { s.awaitingFirstAudio = false }
                return (s.discarding, s.awaitingFirstAudio, s.recorder)
            }
            if first { events.post(.replyAudioStarted(at: time.now())) }
            guard !discard, let playback else { return }
            let samples = Self.samples(pcm)
            if playback.write(samples) { recorder?.model(samples) }
        case .flush:
            playback?.flush()
            let recorder = state.withLock { s in s.awaitingFirstAudio = true; return s.recorder }
            recorder?.modelCut()
            logCanceller("a reply was interrupted")
        case .turnComplete:
            playback?.drain()
            let recorder = state.withLock { s in s.awaitingFirstAudio = true; return s.recorder }
            recorder?.replyEnded()
            logCanceller("a reply ended")
        case .cutReply:
            // Still the same reply: its first-audio edge was reported, the rest arrives only to be dropped.
            let recorder = state.withLock { s in s.discarding = true; return s.recorder }
            playback?.flush()
            recorder?.modelCut()
        case .acceptReplies:
            state.withLock { $0.discarding = false }
        case .modelAnswering(let answering):
            state.withLock { $0.modelAnswering = answering }
        }
    }

    /// The canceller's state in the log once a reply ends or the server interrupts it (an echo that cut a reply
    /// is diagnosed from it); nothing while it is off.
    private func logCanceller(_ when: String) {
        guard let canceller, canceller.isActive else { return }
        log.info("echo canceller when \(when): \(canceller.statistics.summary)")
    }

    /// 16-bit little-endian PCM as samples: one copy on a little-endian machine.
    static func samples(_ pcm: Data) -> [Int16] {
        pcm.withUnsafeBytes { raw in
            #if _endian(little)
            [Int16](unsafeUninitializedCapacity: raw.count / 2) { out, count in
                count = raw.count / 2
                UnsafeMutableRawBufferPointer(out).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[..<(count * 2)]))
            }
            #else
            raw.bindMemory(to: Int16.self).map { Int16(littleEndian: $0) }
            #endif
        }
    }

    func close() {
        capture?.close()
        playback?.close()
        try? echoModule?.unload()
    }
}
