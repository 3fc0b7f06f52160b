/// What a playback stream asks of the server (`pa_buffer_attr`'s `tlength`, `prebuf` and `minreq`, in bytes)
/// for a target latency. A pure value: `PulsePlayback` connects with it.
///
/// On PipeWire's server (`pipewire-pulse`, Debian 12's 0.3.65) a playback stream whose queue there is short (reply
/// frames arriving about as fast as they play) is asked for more (a REQUEST message, one wake-up of the audio
/// thread) each time it has played `minreq`: with `minreq` 10 ms, 95 times a second (`PulseDaemonTests`; at the
/// simulator's 4× in open mic the audio thread read twice as many messages as with 40). parley does not use the
/// asks (it tops the server's queue up on its own timer), so there it asks for a `minreq` of
/// `pipeWireRequestMilliseconds`. That server's node latency (the graph's cycle follows the smallest one, and with
/// it how soon a reply is heard) is, for a stream that adjusts its latency, (tlength − 2·minreq) / 2, or `minreq`
/// when tlength is no more than twice it: `tlength` grows with `minreq` so that latency, and every timing that
/// follows from it, stays what the target gives (`pw-top`: 240/24000 for 40 ms asked, before and after).
/// PulseAudio gets the plain request. It asks as often for a short queue (100 a second), and the same rule there
/// keeps its sink latency (the null sink's "configured 30000 usec" for 80/10 and 140/40) and halves the asks (50:
/// it also asks whenever its queue runs empty), but the live canceller test lost 7–10 dB of ERLE with it
/// (`EchoCancellerLiveTests`, 4 runs each, A B: 32–46 dB against 24–35 in its first phase), so it is not done.
struct PlaybackBufferAttributes: Sendable, Equatable {
    var tlength: UInt32
    var prebuf: UInt32
    var minreq: UInt32

    /// The least `minreq` asked of PipeWire's server: its asks come about 25 times a second while a reply plays.
    static let pipeWireRequestMilliseconds = 40

    init(tlength: UInt32, prebuf: UInt32, minreq: UInt32) {
        self.tlength = tlength
        self.prebuf = prebuf
        self.minreq = minreq
    }

    /// The request for `targetMilliseconds` of latency with `minreq` of `writeMilliseconds` (no more than the
    /// target) and `prebuf` of `prebufferMilliseconds` (nil: `writeMilliseconds`; no more than the target).
    init(targetMilliseconds target: Int, writeMilliseconds write: Int, prebufferMilliseconds: Int?,
         format: AudioFormat, pipeWire: Bool) {
        tlength = bytes(milliseconds: target, format: format)
        prebuf = bytes(milliseconds: max(1, min(target, prebufferMilliseconds ?? write)), format: format)
        minreq = bytes(milliseconds: min(write, target), format: format)
        guard pipeWire else { return }
        let latency = Self.pipeWireNodeLatency(tlength: tlength, minreq: minreq, format: format)
        let request = max(minreq, bytes(milliseconds: Self.pipeWireRequestMilliseconds, format: format))
        tlength = 2 * latency + 2 * request
        minreq = request
    }

    /// The node latency PipeWire's server sets for a stream that adjusts its latency, in bytes (whole frames).
    static func pipeWireNodeLatency(tlength: UInt32, minreq: UInt32, format: AudioFormat) -> UInt32 {
        guard tlength > 2 * minreq else { return minreq }
        let frame = UInt32(format.bytesPerFrame)
        return (tlength - 2 * minreq) / 2 / frame * frame
    }
}
