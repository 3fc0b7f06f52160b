import PulseAudioTesting
import XCTest
@testable import PulseAudio

final class WAVTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    /// The wire's and the file's byte order, low byte first, whatever the machine's; appending adds to what is there.
    func testSamplesBecomeLittleEndianBytes() {
        let samples: [Int16] = [0x0102, -2, .min, .max, 0]
        let bytes: [UInt8] = [0x02, 0x01, 0xFE, 0xFF, 0x00, 0x80, 0xFF, 0x7F, 0x00, 0x00]
        XCTAssertEqual(WAVFile.littleEndianBytes(samples), bytes)
        XCTAssertEqual(WAVFile.littleEndianBytes([]), [])
        var held: [UInt8] = [9]
        AudioChunk(samples: samples, timestamp: 0, level: AudioLevel(measuring: samples), sequence: 0).appendLittleEndianBytes(to: &held)
        XCTAssertEqual(held, [9] + bytes)
    }

    func testMonoRoundTrip() throws {
        let x = Signals.sine(frequency: 440, rate: 24_000, seconds: 0.25) + [Int16.min, Int16.max, -1, 0, 1]
        let url = dir.appendingPathComponent("mono.wav")
        try WAVFile.write(x, sampleRate: 24_000, channels: 1, to: url)
        let r = try WAVFile.read(url)
        XCTAssertEqual(r.samples, x)
        XCTAssertEqual(r.sampleRate, 24_000)
        XCTAssertEqual(r.channels, 1)
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        XCTAssertEqual(size, 44 + 2 * x.count)
    }

    func testStereoRoundTripAndMixdown() throws {
        let l = Signals.sine(frequency: 300, rate: 44_100, seconds: 0.1)
        var stereo: [Int16] = []
        for s in l { stereo += [s, 0] }
        let url = dir.appendingPathComponent("stereo.wav")
        try WAVFile.write(stereo, sampleRate: 44_100, channels: 2, to: url)
        let c = try WAVFile.readContents(url)
        XCTAssertEqual(c.channels, 2)
        XCTAssertEqual(c.samples, stereo)
        XCTAssertEqual(c.duration, 0.1, accuracy: 0.001)
        XCTAssertEqual(c.mono, l.map { Int16(Int($0) / 2) })
    }

    func testReadMonoMixesAndResamplesTo16k() throws {
        let tone = Signals.sine(frequency: 1000, rate: 48_000, seconds: 0.5)
        var stereo: [Int16] = []
        for s in tone { stereo += [s, s] }
        let url = dir.appendingPathComponent("in.wav")
        try WAVFile.write(stereo, sampleRate: 48_000, channels: 2, to: url)
        let mono16 = try WAVFile.readMono(url, sampleRate: 16_000)
        XCTAssertEqual(mono16.count, 8_000)
        XCTAssertEqual(Signals.frequency(mono16, rate: 16_000), 1000, accuracy: 10)
    }

    func testStreamingWriterFixesTheHeader() throws {
        let url = dir.appendingPathComponent("rec.wav")
        let w = try WAVWriter(url: url, format: .playback)
        try w.append([1, 2, 3])
        try w.append([4, 5])
        try w.close()
        try w.close()
        XCTAssertThrowsError(try w.append([6]))
        let r = try WAVFile.read(url)
        XCTAssertEqual(r.samples, [1, 2, 3, 4, 5])
        XCTAssertEqual(r.sampleRate, 24_000)
    }

    /// Builds a WAV with an arbitrary fmt chunk.
    private func wav(formatTag: UInt16, channels: UInt16, rate: UInt32, bits: UInt16, extra: [UInt8] = [],
                     data: [UInt8] = [0, 0, 0, 0]) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(4 + 8 + 16 + extra.count + 8 + data.count + 8 + 3 + 1))
        d.append(contentsOf: Array("WAVE".utf8))
        // An odd-sized chunk before fmt: must be skipped with its pad byte.
        d.append(contentsOf: Array("LIST".utf8)); u32(3); d.append(contentsOf: [1, 2, 3, 0])
        d.append(contentsOf: Array("fmt ".utf8)); u32(UInt32(16 + extra.count))
        u16(formatTag); u16(channels); u32(rate); u32(rate * UInt32(channels) * UInt32(bits / 8))
        u16(channels * bits / 8); u16(bits)
        d.append(contentsOf: extra)
        d.append(contentsOf: Array("data".utf8)); u32(UInt32(data.count)); d.append(contentsOf: data)
        return d
    }

    func testOddChunksAndExtensibleFormatParse() throws {
        let plain = try WAVFile.parse(wav(formatTag: 1, channels: 1, rate: 8000, bits: 16, data: [1, 0, 0xFF, 0xFF]))
        XCTAssertEqual(plain.samples, [1, -1])
        // WAVE_FORMAT_EXTENSIBLE with the PCM subformat.
        var ext: [UInt8] = [22, 0, 16, 0, 4, 0, 0, 0, 1, 0]
        ext += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        let e = try WAVFile.parse(wav(formatTag: 0xFFFE, channels: 1, rate: 16000, bits: 16, extra: ext))
        XCTAssertEqual(e.sampleRate, 16000)
        XCTAssertEqual(e.samples, [0, 0])
    }

    func testUnsupportedFilesSayWhatToDo() throws {
        func problem(_ d: Data) -> PulseAudioError? {
            do { _ = try WAVFile.parse(d, path: "in.wav"); return nil } catch { return error as? PulseAudioError }
        }
        let eightBit = problem(wav(formatTag: 1, channels: 1, rate: 8000, bits: 8))
        XCTAssertEqual(eightBit, .wav(path: "in.wav", problem: .unsupportedBitDepth(8)))
        XCTAssertEqual(eightBit?.description,
                       "in.wav is 8-bit PCM: parley reads 16-bit PCM WAV: convert with sox in.wav -b 16 in-16bit.wav")
        XCTAssertEqual(problem(wav(formatTag: 3, channels: 1, rate: 8000, bits: 32))?.message,
                       "in.wav is 32-bit float: parley reads 16-bit PCM WAV")
        XCTAssertEqual(problem(wav(formatTag: 1, channels: 6, rate: 8000, bits: 16)),
                       .wav(path: "in.wav", problem: .unsupportedChannels(6)))
        XCTAssertEqual(problem(Data("hello".utf8)), .wav(path: "in.wav", problem: .notRIFF))
        XCTAssertEqual(problem(Data("RIFF\u{0}\u{0}\u{0}\u{0}AVI ".utf8)), .wav(path: "in.wav", problem: .notWAVE))
        var noData = wav(formatTag: 1, channels: 1, rate: 8000, bits: 16)
        noData.removeLast(12)
        XCTAssertEqual(problem(noData), .wav(path: "in.wav", problem: .missingData))
        XCTAssertThrowsError(try WAVFile.read(dir.appendingPathComponent("nope.wav"))) { e in
            guard case .wav(_, .unreadable)? = e as? PulseAudioError else { return XCTFail("\(e)") }
        }
    }
}

final class ResamplerTests: XCTestCase {
    private func check(from: Int, to: Int, file: StaticString = #filePath, line: UInt = #line) {
        let x = Signals.sine(frequency: 1000, rate: from, seconds: 1.0, amplitude: 0.5)
        let y = Resampler.resample(x, from: from, to: to)
        XCTAssertEqual(y.count, to, accuracy: 1, file: file, line: line)
        let f = Signals.frequency(Array(y[(to / 10)..<(to * 9 / 10)]), rate: to)
        XCTAssertEqual(f, 1000, accuracy: 10, "\(from)→\(to): 1 kHz within 1%", file: file, line: line)
        let level = Signals.rmsDB(y[(to / 10)..<(to * 9 / 10)])
        XCTAssertEqual(level, -9.03, accuracy: 0.2, "\(from)→\(to): level kept", file: file, line: line)
    }

    func testA1kHzToneStays1kHzAcrossCommonRates() {
        check(from: 24_000, to: 16_000)
        check(from: 16_000, to: 24_000)
        check(from: 44_100, to: 16_000)
        check(from: 48_000, to: 16_000)
        check(from: 22_050, to: 24_000)
        check(from: 8_000, to: 16_000)
    }

    func testGoertzelPowerAt1kHzIsKept() {
        let x = Signals.sine(frequency: 1000, rate: 44_100, seconds: 0.5, amplitude: 0.5)
        let y = Resampler.resample(x, from: 44_100, to: 16_000)
        XCTAssertEqual(Signals.goertzelDB(Array(y[800..<7200]), frequency: 1000, rate: 16_000), -6.02, accuracy: 0.3)
    }

    func testToneAboveTheNewNyquistIsRemovedNotAliased() {
        // 11 kHz at 48 kHz would alias to 5 kHz at 16 kHz if samples were just dropped.
        let x = Signals.sine(frequency: 11_000, rate: 48_000, seconds: 0.5, amplitude: 0.5)
        let dropped = stride(from: 0, to: x.count, by: 3).map { x[$0] }
        XCTAssertGreaterThan(Signals.rmsDB(dropped[...]), -12, "sample dropping aliases")
        let y = Resampler.resample(x, from: 48_000, to: 16_000)
        XCTAssertLessThan(Signals.rmsDB(y[800..<7200]), -70, "band-limited: the alias is gone")
    }

    func testSameRateAndEmptyAreIdentity() {
        XCTAssertEqual(Resampler.resample([1, 2, 3], from: 16_000, to: 16_000), [1, 2, 3])
        XCTAssertEqual(Resampler.resample([], from: 16_000, to: 24_000), [])
    }

    func testReusableResamplerMatchesOneShot() {
        let x = Signals.sine(frequency: 700, rate: 24_000, seconds: 0.1)
        let r = Resampler(from: 24_000, to: 16_000)
        XCTAssertEqual(r.process(x), Resampler.resample(x, from: 24_000, to: 16_000))
    }

    /// The unrolled dot product of the far end's filter is the loop's, sample for sample: random windows and
    /// phases of the 24 → 16 kHz filter, loud enough to clip.
    func testTheUnrolledDotProductIsTheLoops() {
        let r = Resampler(from: 24_000, to: 16_000, zeroCrossings: 9)
        XCTAssertEqual(r.stride, 32)
        var seed: UInt32 = 7
        var x = [Float](repeating: 0, count: 4_096)
        for k in x.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            x[k] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * (k < 2_048 ? 30_000 : 200_000)
        }
        var differ = 0
        x.withUnsafeBufferPointer { xs in
            r.weights.withUnsafeBufferPointer { w in
                for start in 0..<(xs.count - 32) {
                    let h = w.baseAddress! + (start % r.up) * 32
                    if Resampler.sample32(xs.baseAddress! + start, h) != Resampler.sample(xs.baseAddress! + start, h, stride: 32) {
                        differ += 1
                    }
                }
            }
        }
        XCTAssertEqual(differ, 0)
    }

    /// The output's rounding is `lrintf`'s: every quarter from −32768 to 32767 (the halves are ties, to even),
    /// the floats either side of each half, and a spread of others.
    func testOutputsRoundAsLrintfDoes() {
        var values: [Float] = []
        for q in stride(from: -32768 * 4, through: 32767 * 4, by: 1) { values.append(Float(q) / 4) }
        for h in stride(from: Float(-32767.5), through: 32766.5, by: 1) { values += [h.nextUp, h.nextDown] }
        var x: UInt32 = 12345
        for _ in 0..<100_000 {
            x = x &* 1_664_525 &+ 1_013_904_223
            values.append(Float(x >> 8) / Float(1 << 24) * 65535 - 32768)
        }
        var wrong = 0
        for v in values where Resampler.roundedToInt16(v) != Int16(lrintf(v)) { wrong += 1 }
        XCTAssertEqual(wrong, 0, "of \(values.count)")
    }
}

final class ErrorTests: XCTestCase {
    func testErrorsCarryAMessageAndAHint() {
        let e = PulseAudioError.noServer(server: "unix:/tmp/x/native", reason: "Connection refused")
        XCTAssertEqual(e.description,
                       "no PulseAudio server at unix:/tmp/x/native (Connection refused): start one (pulseaudio --start), or run with --no-audio")
        XCTAssertTrue(PulseAudioError.noSuchDevice(name: "usb", kind: .source).hint.contains("--mic"))
        XCTAssertTrue(PulseAudioError.noSuchDevice(name: "usb", kind: .sink).hint.contains("--speaker"))
        XCTAssertTrue(PulseAudioError.timedOut(operation: "x", seconds: 0.5).message.contains("500 ms"))
    }
}
