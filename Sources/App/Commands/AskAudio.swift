import Foundation
import Live
import PulseAudio

/// The audio side of `parley ask`: WAV in, 20 ms chunks out; reply audio to a WAV file.
enum AskAudio {
    /// Opens a question in a 16-bit PCM WAV file (mono or stereo, any common rate) as 20 ms chunks of 16 kHz
    /// mono s16le, read from the file as they are needed: an hour of audio costs no more memory than a second.
    static func loadQuestion(_ path: String) throws -> Question {
        do {
            return try Question(path: path)
        } catch let e as ParleyError {
            throw e
        } catch {
            throw ParleyError.file(path: path, problem: "\(error)")
        }
    }

    /// The chunks of a WAV file, streamed.
    struct Question: Sequence {
        let path: String
        let format: (channels: Int, rate: Int)
        let dataOffset: UInt64
        let dataBytes: UInt64

        init(path: String) throws {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ParleyError.file(path: path, problem: "cannot open the WAV file")
            }
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
            // The header checks and their messages are WAVFile's; the sample data is read later, in blocks.
            let contents = try WAVFile.parse(head, path: path)
            let size = (try? handle.seekToEnd()) ?? UInt64(head.count)
            guard let (offset, declared) = Self.dataChunk(head) else {
                throw ParleyError.file(path: path, problem: "the WAV file has no data chunk in its first 64 KB")
            }
            let rest = size > offset ? size - offset : 0
            let bytes = declared == 0 || declared == 0xFFFF_FFFF || declared > rest ? rest : declared
            guard bytes >= UInt64(2 * contents.channels) else { throw ParleyError.file(path: path, problem: "the WAV file holds no audio") }
            self.path = path
            format = (contents.channels, contents.sampleRate)
            dataOffset = offset
            dataBytes = bytes
        }

        /// Where the `data` chunk's samples start, and its declared size.
        static func dataChunk(_ head: Data) -> (UInt64, UInt64)? {
            let b = [UInt8](head)
            func u32(_ at: Int) -> UInt64 { UInt64(b[at]) | UInt64(b[at + 1]) << 8 | UInt64(b[at + 2]) << 16 | UInt64(b[at + 3]) << 24 }
            var at = 12
            while at + 8 <= b.count {
                let size = u32(at + 4)
                if b[at..<at + 4].elementsEqual(Array("data".utf8)) { return (UInt64(at + 8), size) }
                at += 8 + Int(size) + Int(size & 1)
            }
            return nil
        }

        func makeIterator() -> Iterator { Iterator(self) }

        struct Iterator: IteratorProtocol {
            let question: Question
            let handle: FileHandle?
            let resampler: Resampler
            var left: UInt64
            var pending: [Int16] = []
            var at = 0
            let chunk = LiveAudioFormat.inputSampleRate / 50

            init(_ q: Question) {
                question = q
                handle = FileHandle(forReadingAtPath: q.path)
                try? handle?.seek(toOffset: q.dataOffset)
                resampler = Resampler(from: q.format.rate, to: LiveAudioFormat.inputSampleRate)
                left = q.dataBytes
            }

            mutating func next() -> Data? {
                if pending.count - at < chunk { refill() }
                guard at < pending.count else { return nil }
                let end = Swift.min(at + chunk, pending.count)
                defer { at = end }
                return pending[at..<end].withUnsafeBytes { Data($0) }
            }

            /// Reads the next 10 s of the file (whole seconds resample exactly, so blocks join without drift).
            mutating func refill() {
                guard left > 0, let handle else { return }
                let frameBytes = 2 * question.format.channels
                let want = Swift.min(left, UInt64(question.format.rate * frameBytes * 10))
                guard let data = try? handle.read(upToCount: Int(want)), !data.isEmpty else { left = 0; return }
                left -= UInt64(data.count)
                let usable = data.count / frameBytes * frameBytes
                var samples = [Int16](repeating: 0, count: usable / 2)
                data.withUnsafeBytes { raw in
                    for i in 0..<samples.count { samples[i] = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self)) }
                }
                let mono = WAVFile.mixdown(samples, channels: question.format.channels)
                pending = Array(pending[at...]) + resampler.process(mono)
                at = 0
            }
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
