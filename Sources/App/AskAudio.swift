import Foundation
import Live
import PulseAudio

/// The audio side of `parley ask`: WAV in, 20 ms chunks out; reply audio to a WAV file.
enum AskAudio {
    /// Reads a question from a 16-bit PCM WAV file (mono or stereo, any common rate) as 20 ms chunks of
    /// 16 kHz mono s16le.
    static func loadQuestion(_ path: String) throws -> [Data] {
        let samples: [Int16]
        do {
            samples = try WAVFile.readMono(URL(fileURLWithPath: path), sampleRate: LiveAudioFormat.inputSampleRate)
        } catch {
            throw ParleyError.file(path: path, problem: "\(error)")
        }
        guard !samples.isEmpty else { throw ParleyError.file(path: path, problem: "the WAV file holds no audio") }
        let chunk = LiveAudioFormat.inputSampleRate / 50
        return stride(from: 0, to: samples.count, by: chunk).map { start in
            samples[start..<min(start + chunk, samples.count)].withUnsafeBytes { Data($0) }
        }
    }

    /// Writes 24 kHz mono s16le reply audio as a WAV file.
    static func saveReply(_ pcm: Data, to path: String) throws {
        let samples = pcm.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self)) }
        do {
            try WAVFile.write(samples.map { Int16(littleEndian: $0) }, sampleRate: LiveAudioFormat.outputSampleRate, to: URL(fileURLWithPath: path))
        } catch {
            throw ParleyError.file(path: path, problem: "cannot write the reply audio: \(error)")
        }
    }
}
