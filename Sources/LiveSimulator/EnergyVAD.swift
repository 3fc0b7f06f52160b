import Foundation

/// Voice activity detection by energy, on 16-bit mono PCM: 20 ms frames whose RMS is above a threshold are
/// speech. Speech starts after a few loud frames in a row and ends after enough quiet audio. It counts audio
/// time, not wall time, so it is deterministic whatever the machine's load.
struct EnergyVAD: Sendable {
    enum Event: Sendable, Equatable {
        case speechStarted
        case speechEnded
    }

    let sampleRate: Int
    let threshold: Double
    /// Loud frames in a row needed to start speech.
    let startFrames: Int
    /// Quiet frames in a row that end speech.
    let endFrames: Int

    private(set) var inSpeech = false
    private var loudRun = 0
    private var quietRun = 0
    /// A partial frame carried over between chunks (samples).
    private var pending: [Int16] = []
    /// A dangling odd byte carried over between chunks.
    private var oddByte: UInt8?

    init(sampleRate: Int, threshold: Double, startFrames: Int = 2, silence: Duration) {
        self.sampleRate = max(1000, sampleRate)
        self.threshold = threshold
        self.startFrames = max(1, startFrames)
        let frameMs = 20.0
        let silenceMs = Double(silence.components.seconds) * 1000 + Double(silence.components.attoseconds) / 1e15
        endFrames = max(1, Int((silenceMs / frameMs).rounded(.up)))
    }

    /// Feeds little-endian s16 bytes and returns what changed.
    mutating func process(_ bytes: Data) -> [Event] {
        var samples = pending
        samples.reserveCapacity(pending.count + bytes.count / 2 + 1)
        var iterator = bytes.makeIterator()
        if let lo = oddByte, let hi = iterator.next() {
            samples.append(Int16(bitPattern: UInt16(lo) | UInt16(hi) << 8))
            oddByte = nil
        }
        while let lo = iterator.next() {
            guard let hi = iterator.next() else {
                oddByte = lo
                break
            }
            samples.append(Int16(bitPattern: UInt16(lo) | UInt16(hi) << 8))
        }
        let frame = sampleRate / 50
        var events: [Event] = []
        var start = 0
        while samples.count - start >= frame {
            if let e = step(samples[start..<start + frame]) { events.append(e) }
            start += frame
        }
        pending = Array(samples[start...])
        return events
    }

    /// Forgets any speech in progress (after `audioStreamEnd`).
    mutating func reset() {
        inSpeech = false
        loudRun = 0
        quietRun = 0
        pending = []
        oddByte = nil
    }

    private mutating func step(_ frame: ArraySlice<Int16>) -> Event? {
        var sum = 0.0
        for s in frame { sum += Double(s) * Double(s) }
        let rms = (sum / Double(frame.count)).squareRoot()
        if rms >= threshold {
            loudRun += 1
            quietRun = 0
            if !inSpeech, loudRun >= startFrames {
                inSpeech = true
                return .speechStarted
            }
        } else {
            quietRun += 1
            loudRun = 0
            if inSpeech, quietRun >= endFrames {
                inSpeech = false
                return .speechEnded
            }
        }
        return nil
    }
}
