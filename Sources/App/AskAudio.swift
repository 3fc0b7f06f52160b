import Foundation

/// The audio side of `parley ask`: WAV in, 20 ms chunks out; reply audio to a WAV file.
enum AskAudio {
    /// Reads a question from a WAV file as 20 ms chunks of 16 kHz mono s16le.
    static func loadQuestion(_ path: String) throws -> [Data] {
        throw ParleyError.file(path: path, problem: "WAV input arrives with the PulseAudio module")
    }

    static func saveReply(_ pcm: Data, to path: String) throws {
        throw ParleyError.file(path: path, problem: "WAV output arrives with the PulseAudio module")
    }
}
