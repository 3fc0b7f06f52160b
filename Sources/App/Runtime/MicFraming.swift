import PulseAudio

/// How open-mic audio is framed on the wire: 20 ms frames while anything is heard and for a while after,
/// 100 ms frames while the room is silent. The server receives the same audio; a silent room just costs a
/// fifth of the frames (each one a base64 + JSON encode, a WebSocket write and a wake-up of the network
/// thread). Speech onset is never delayed: the first loud chunk leaves at once, with the silence held before
/// it. The hangover keeps 20 ms frames long after the last sound, so the server's end-of-speech timing, which
/// counts silence as it arrives, is the same as without batching. A pure value.
struct MicFraming: Sendable {
    /// Up to this RMS level the mic hears a room, not a voice (well under quiet speech, above a quiet room).
    static let roomDBFS = -50.0
    /// Chunks below this RMS level count as silence.
    var quietDBFS = roomDBFS
    /// Quiet chunks after the last loud one that still go out one by one (1.5 s of 20 ms chunks).
    var hangoverChunks = 75
    /// The most chunks one silent frame carries (5: 100 ms).
    var maxChunks = 5

    private var held: [UInt8] = []
    private var heldChunks = 0
    private var quietRun = Int.max

    /// The bytes to send for `chunk` (and whatever was held before it), or nil to hold them for now.
    /// `batching` is false in push-to-talk: every chunk leaves at once.
    mutating func frame(_ chunk: AudioChunk, batching: Bool) -> [UInt8]? {
        if chunk.level.rmsDBFS >= quietDBFS {
            quietRun = 0
        } else if quietRun < Int.max {
            quietRun += 1
        }
        let hold = batching && !chunk.endsGate && quietRun > hangoverChunks && heldChunks + 1 < maxChunks
        chunk.appendLittleEndianBytes(to: &held)
        heldChunks += 1
        if hold { return nil }
        defer {
            held.removeAll(keepingCapacity: true)
            heldChunks = 0
        }
        return held
    }

    /// Forgets what is held (the mic closed without an ending chunk, or the connection changed).
    mutating func reset() {
        held.removeAll(keepingCapacity: true)
        heldChunks = 0
    }
}
