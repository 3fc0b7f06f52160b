import Foundation
import ParleyLock

/// 16-bit PCM WAV files: reading (mono or stereo, any rate), writing, and a streaming writer for recordings.
public enum WAVFile {
    /// The samples of a WAV file: interleaved if stereo.
    public struct Contents: Sendable, Equatable {
        /// Interleaved s16 samples.
        public var samples: [Int16]
        /// Frames per second.
        public var sampleRate: Int
        /// 1 or 2.
        public var channels: Int

        /// Creates contents from their parts.
        public init(samples: [Int16], sampleRate: Int, channels: Int) {
            self.samples = samples
            self.sampleRate = sampleRate
            self.channels = channels
        }

        /// The same audio as mono (channels averaged).
        public var mono: [Int16] { WAVFile.mixdown(samples, channels: channels) }

        /// Duration in seconds.
        public var duration: Double { AudioFormat(sampleRate: sampleRate, channels: channels).duration(sampleCount: samples.count) }
    }

    /// Reads a 16-bit PCM WAV file (mono or stereo, any rate).
    public static func read(_ url: URL) throws -> (samples: [Int16], sampleRate: Int, channels: Int) {
        let c = try readContents(url)
        return (c.samples, c.sampleRate, c.channels)
    }

    /// Reads a 16-bit PCM WAV file into `Contents`.
    public static func readContents(_ url: URL) throws -> Contents {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PulseAudioError.wav(path: url.path, problem: .unreadable(describe(error)))
        }
        return try parse(data, path: url.path)
    }

    /// Reads a WAV file as mono at `sampleRate`: mixed down and resampled if needed. For example
    /// `readMono(url, sampleRate: 16_000)` gives what Gemini Live wants to hear.
    public static func readMono(_ url: URL, sampleRate: Int) throws -> [Int16] {
        let c = try readContents(url)
        return Resampler.resample(c.mono, from: c.sampleRate, to: sampleRate)
    }

    /// Parses the bytes of a WAV file; `path` only names it in errors.
    public static func parse(_ data: Data, path: String = "input") throws -> Contents {
        let bytes = [UInt8](data)
        func fail(_ p: PulseAudioError.WAVProblem) -> PulseAudioError { .wav(path: path, problem: p) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }

        guard bytes.count >= 12, tag(0) == "RIFF" else { throw fail(.notRIFF) }
        guard tag(8) == "WAVE" else { throw fail(.notWAVE) }

        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var dataRange: Range<Int>?
        var at = 12
        while at + 8 <= bytes.count {
            let id = tag(at)
            let declared = Int(u32(at + 4))
            let body = at + 8
            // Streaming writers leave 0 or 0xFFFFFFFF in the data size: take the rest of the file.
            let size = (id == "data" && (declared == 0 || declared == 0xFFFF_FFFF || body + declared > bytes.count))
                ? bytes.count - body : declared
            if id == "fmt " {
                guard size >= 16, body + 16 <= bytes.count else { throw fail(.truncated) }
                var formatTag = Int(u16(body))
                if formatTag == 0xFFFE, size >= 40, body + 26 <= bytes.count {
                    formatTag = Int(u16(body + 24))  // WAVE_FORMAT_EXTENSIBLE: the subformat GUID starts with the tag
                }
                format = (formatTag, Int(u16(body + 2)), Int(u32(body + 4)), Int(u16(body + 14)))
            } else if id == "data" {
                dataRange = body..<min(bytes.count, body + size)
                if format != nil { break }
            }
            guard size >= 0, body + size >= body else { throw fail(.truncated) }
            at = body + size + (size & 1)
        }
        guard let f = format else { throw fail(.missingFormat) }
        guard f.tag == 1 else { throw fail(.unsupportedEncoding(formatTag: f.tag)) }
        guard f.bits == 16 else { throw fail(.unsupportedBitDepth(f.bits)) }
        guard f.channels == 1 || f.channels == 2 else { throw fail(.unsupportedChannels(f.channels)) }
        guard f.rate >= 1000, f.rate <= 384_000 else { throw fail(.unsupportedRate(f.rate)) }
        guard let range = dataRange else { throw fail(.missingData) }

        let frameBytes = 2 * f.channels
        let usable = (range.count / frameBytes) * frameBytes
        var samples = [Int16](repeating: 0, count: usable / 2)
        var i = range.lowerBound
        for n in 0..<samples.count {
            samples[n] = Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)
            i += 2
        }
        return Contents(samples: samples, sampleRate: f.rate, channels: f.channels)
    }

    /// Writes interleaved 16-bit samples as a PCM WAV file.
    public static func write(_ samples: [Int16], sampleRate: Int, channels: Int = 1, to url: URL) throws {
        var data = header(sampleRate: sampleRate, channels: channels, dataBytes: samples.count * 2)
        data.append(contentsOf: littleEndianBytes(samples))
        do {
            try data.write(to: url)
        } catch {
            throw PulseAudioError.wav(path: url.path, problem: .unwritable(describe(error)))
        }
    }

    /// Encodes interleaved 16-bit samples as the bytes of a PCM WAV file.
    public static func encode(_ samples: [Int16], sampleRate: Int, channels: Int = 1) -> Data {
        var data = header(sampleRate: sampleRate, channels: channels, dataBytes: samples.count * 2)
        data.append(contentsOf: littleEndianBytes(samples))
        return data
    }

    /// Averages interleaved channels into one.
    public static func mixdown(_ samples: [Int16], channels: Int) -> [Int16] {
        guard channels > 1 else { return samples }
        let frames = samples.count / channels
        var out = [Int16](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum = 0
            for c in 0..<channels { sum += Int(samples[f * channels + c]) }
            out[f] = Int16(sum / channels)
        }
        return out
    }

    /// The 44-byte header of a canonical PCM WAV file.
    public static func header(sampleRate: Int, channels: Int, dataBytes: Int) -> Data {
        var h = Data()
        func put32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        func put16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        h.append(contentsOf: Array("RIFF".utf8)); put32(36 + dataBytes)
        h.append(contentsOf: Array("WAVE".utf8))
        h.append(contentsOf: Array("fmt ".utf8)); put32(16)
        put16(1); put16(channels); put32(sampleRate); put32(sampleRate * channels * 2); put16(channels * 2); put16(16)
        h.append(contentsOf: Array("data".utf8)); put32(dataBytes)
        return h
    }

    static func littleEndianBytes(_ samples: [Int16]) -> [UInt8] {
        var out: [UInt8] = []
        appendLittleEndianBytes(samples, to: &out)
        return out
    }

    /// Appends the samples' little-endian bytes: on a little-endian machine, the samples' own bytes, copied.
    static func appendLittleEndianBytes(_ samples: [Int16], to out: inout [UInt8]) {
        #if _endian(little)
        samples.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
        out.reserveCapacity(out.count + 2 * samples.count)
        for s in samples {
            let u = UInt16(bitPattern: s)
            out.append(UInt8(u & 0xFF))
            out.append(UInt8(u >> 8))
        }
        #endif
    }

    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let msg = strerror(Int32(underlying.code)) {
            return String(cString: msg)
        }
        return ns.localizedDescription
    }
}

/// Appends audio to a WAV file as it arrives (for `--save-audio` and session recordings) and fixes the
/// header's sizes on `close()`. Thread-safe.
public final class WAVWriter: Sendable {
    private struct State {
        var handle: FileHandle?
        var dataBytes = 0
    }
    private let state: Locked<State>
    /// The file being written.
    public let url: URL
    /// The format of the samples appended.
    public let format: AudioFormat

    /// Creates (or truncates) `url` and writes a header for `format`.
    public init(url: URL, format: AudioFormat) throws {
        self.url = url
        self.format = format
        guard FileManager.default.createFile(atPath: url.path,
                                             contents: WAVFile.header(sampleRate: format.sampleRate,
                                                                      channels: format.channels, dataBytes: 0)),
              let handle = try? FileHandle(forWritingTo: url) else {
            throw PulseAudioError.wav(path: url.path, problem: .unwritable("cannot create the file"))
        }
        _ = try? handle.seekToEnd()
        state = Locked(State(handle: handle))
    }

    /// Appends interleaved samples.
    public func append(_ samples: [Int16]) throws {
        try state.withLock { s in
            guard let h = s.handle else { throw PulseAudioError.closed }
            do {
                try h.write(contentsOf: WAVFile.littleEndianBytes(samples))
            } catch {
                throw PulseAudioError.wav(path: url.path, problem: .unwritable(WAVFile.describe(error)))
            }
            s.dataBytes += samples.count * 2
        }
    }

    /// Writes the final sizes into the header and closes the file. Safe to call more than once.
    public func close() throws {
        try state.withLock { s in
            guard let h = s.handle else { return }
            s.handle = nil
            do {
                let header = WAVFile.header(sampleRate: format.sampleRate, channels: format.channels,
                                            dataBytes: s.dataBytes)
                try h.seek(toOffset: 0)
                try h.write(contentsOf: header)
                try h.close()
            } catch {
                throw PulseAudioError.wav(path: url.path, problem: .unwritable(WAVFile.describe(error)))
            }
        }
    }

    deinit {
        try? close()
    }
}
