import ParleyTime
import PulseAudio

/// The sound devices a conversation runs on, before `AudioIO` opens them: PulseAudio's in the program
/// (`pulse`), fakes from `PulseAudioTesting` in tests. `AudioIO` sees only the `AudioSource` / `AudioSink`
/// tables (open, close, flush, write, levels…), so any backend plugs in.
struct SoundDevices {
    var source: (any AudioSource)?
    var sink: (any AudioSink)?
    /// PulseAudio's module-echo-cancel, loaded for this run; `AudioIO.close` unloads it.
    var echoModule: PulseEchoModule?
    /// WebRTC's canceller in process, between the sink and the source; nil if not wanted or unavailable.
    var canceller: WebRTCCanceller?
    /// Why there is no sound, in words for the banner; nil when the devices are there to open.
    var problem: String?

    /// No devices, for `problem`.
    static func none(_ problem: String) -> SoundDevices { SoundDevices(problem: problem) }

    /// PulseAudio's mic and speaker as the config names them, with the echo protection it asks for; their
    /// timestamps are on `time`, the app's clock.
    static func pulse(config: Config, events: EventQueue, time: TimeSource, logger: (String) -> Void) -> SoundDevices {
        var mic = config.mic
        var speaker = config.speaker
        var module: PulseEchoModule?
        var canceller: WebRTCCanceller?
        if config.echoCancel.wantsModule {
            // A parley that was killed may have left its canceller loaded.
            _ = try? PulseEchoModule.unloadLeftovers()
            do {
                let loaded = try PulseEchoModule(source: mic, sink: speaker)
                mic = loaded.sourceName
                speaker = loaded.sinkName
                module = loaded
            } catch {
                logger("echo cancellation unavailable: \(error)")
            }
        }
        if config.echoCancel.wantsCanceller {
            do {
                canceller = try WebRTCCanceller()
                canceller?.isActive = config.echoCancel.cancellerActive(openMic: config.mode == .open)
            } catch {
                logger("echo canceller unavailable, half-duplex gating instead: \(error)")
            }
        }
        // The server is not known before the stream connects: PulseAudio's figure, until the mic opens
        // (`AudioIO.perform(.open)` sets the buffer for the server it found).
        let buffer = AudioIO.playbackBuffer(config.playbackBufferMs, cancelling: canceller?.isActive ?? false, pipeWire: false)
        var po = PulsePlayback.Options(device: speaker, targetLatencyMilliseconds: buffer)
        po.canceller = canceller
        po.time = time
        po.onStartHeard = { ns in events.post(.replyAudible(at: Double(ns) / 1e9)) }
        var co = PulseCapture.Options(device: mic)
        co.canceller = canceller
        co.time = time
        return SoundDevices(
            source: PulseCapture(options: co, onEvent: { AudioIO.report($0, to: events) }),
            sink: PulsePlayback(options: po, onEvent: { AudioIO.report($0, to: events) }),
            echoModule: module, canceller: canceller)
    }
}
