import Foundation

/// A tiny formant synthesiser: a glottal pulse train at a pitch derived from the voice name, shaped by two
/// formant resonators, with a syllable-like envelope per word and pauses between words. It is not speech, but it
/// sounds voice-like, each voice has its own pitch (so a voice switch is audible), and a test can measure it.
public struct VoiceSynth: Sendable {
    /// Output sample rate (the Live API's 24 kHz).
    public static let sampleRate = 24_000

    /// The voice's fundamental frequency in Hz.
    public let pitch: Double

    public init(voiceName: String) { pitch = Self.pitch(for: voiceName) }

    /// The fundamental frequency of a voice: a stable hash of its name mapped to 90…260 Hz.
    public static func pitch(for voiceName: String) -> Double {
        // FNV-1a: stable across runs and platforms, unlike Hasher.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in voiceName.lowercased().utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return 90 + Double(h % 1701) / 10
    }

    /// Samples for one word: one voiced segment per syllable, then a pause (longer after punctuation).
    func word(_ word: String, index: Int) -> [Int16] {
        let syllables = Self.syllableCount(word)
        var out: [Int16] = []
        var phase = 0.0
        for s in 0..<syllables {
            let vowel = Self.vowelFormants[(index &* 7 &+ s &* 3 &+ word.utf8.count) % Self.vowelFormants.count]
            let length = Int(Double(Self.sampleRate) * (0.15 + 0.02 * Double((index + s) % 3)))
            out += voiced(samples: length, f1: vowel.0, f2: vowel.1, phase: &phase)
            if s < syllables - 1 { out += Array(repeating: 0, count: Self.sampleRate * 25 / 1000) }
        }
        let pauseMs = word.last.map { ".,!?;:".contains($0) } == true ? 260 : 70
        out += Array(repeating: 0, count: Self.sampleRate * pauseMs / 1000)
        return out
    }

    private func voiced(samples n: Int, f1: Double, f2: Double, phase: inout Double) -> [Int16] {
        let sr = Double(Self.sampleRate)
        var r1 = Resonator(frequency: f1, bandwidth: 90, sampleRate: sr)
        var r2 = Resonator(frequency: f2, bandwidth: 120, sampleRate: sr)
        var raw = [Double](repeating: 0, count: n)
        for i in 0..<n {
            // A falling sawtooth is a fair stand-in for the glottal pulse: rich in harmonics, periodic at `pitch`.
            phase += pitch / sr
            if phase >= 1 { phase -= 1 }
            let source = 1 - 2 * phase
            let y = r1.process(source) * 0.6 + r2.process(source) * 0.4
            // Raised-cosine envelope: the syllable swells and fades.
            let env = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            raw[i] = y * env
        }
        // Normalise each syllable to a comfortable peak (about -7 dBFS).
        let peak = raw.reduce(0) { max($0, abs($1)) }
        let scale = peak > 0 ? 0.45 / peak : 0
        return raw.map { Int16(max(-1, min(1, $0 * scale)) * 32767) }
    }

    static func syllableCount(_ word: String) -> Int {
        var count = 0
        var previousVowel = false
        for c in word.lowercased() {
            let v = "aeiouy".contains(c)
            if v && !previousVowel { count += 1 }
            previousVowel = v
        }
        return min(4, max(1, count))
    }

    /// (F1, F2) of a few vowels.
    static let vowelFormants: [(Double, Double)] = [(730, 1090), (530, 1840), (270, 2290), (570, 840), (440, 1020), (660, 1720)]
}

/// A two-pole resonator (a formant filter), normalised to unit gain at its centre frequency.
struct Resonator {
    private let a1: Double, a2: Double, gain: Double
    private var y1 = 0.0, y2 = 0.0

    init(frequency: Double, bandwidth: Double, sampleRate: Double) {
        let r = exp(-Double.pi * bandwidth / sampleRate)
        let theta = 2 * Double.pi * frequency / sampleRate
        a1 = 2 * r * cos(theta)
        a2 = -r * r
        gain = 1 - r
    }

    mutating func process(_ x: Double) -> Double {
        let y = gain * x + a1 * y1 + a2 * y2
        y2 = y1
        y1 = y
        return y
    }
}
