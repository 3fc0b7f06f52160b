import Foundation
import PulseAudio
import XCTest

@testable import App

/// Issue 11 item 10: `ask --audio` streams its WAV file instead of reading it whole.
final class AskAudioStreamTests: XCTestCase {
    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID())-\(name)").path
    }

    func testStreamedChunksMatchTheWholeFileReading() throws {
        let path = tempPath("tone.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frames = 48_000 * 3 / 2
        var stereo = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            stereo[2 * i] = Int16(8000 * sin(Double(i) * 2 * .pi * 440 / 48_000))
            stereo[2 * i + 1] = Int16(truncatingIfNeeded: i % 2000)
        }
        try WAVFile.write(stereo, sampleRate: 48_000, channels: 2, to: URL(fileURLWithPath: path))
        let whole = try WAVFile.readMono(URL(fileURLWithPath: path), sampleRate: 16_000)
        let streamed = Array(try AskAudio.loadQuestion(path))
        XCTAssertEqual(streamed.count, (whole.count + 319) / 320)
        XCTAssertEqual(streamed.reduce(Data(), +), whole.withUnsafeBytes { Data($0) })
    }

    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    func testALongFileIsReadInBoundedMemory() throws {
        let path = tempPath("long.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let seconds = 20 * 60
        let bytes = seconds * 16_000 * 2
        try WAVFile.write([], sampleRate: 16_000, to: URL(fileURLWithPath: path))
        // The header says how much data follows; the data itself is a sparse hole of silence.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 40)
        try handle.write(contentsOf: withUnsafeBytes(of: UInt32(bytes).littleEndian) { Data($0) })
        try handle.truncate(atOffset: 44 + UInt64(bytes))
        try handle.close()

        let before = Self.residentBytes()
        var peak = before
        var chunks = 0
        for _ in try AskAudio.loadQuestion(path) {
            chunks += 1
            if chunks % 5000 == 0 { peak = max(peak, Self.residentBytes()) }
        }
        print("ask --audio: \(seconds / 60) min WAV (\(bytes >> 20) MiB) streamed in \(chunks) chunks; RSS grew \((peak - before) >> 20) MiB")
        XCTAssertEqual(chunks, seconds * 50)
        XCTAssertLessThan(peak - before, 24 << 20, "memory does not grow with the file")
    }
}
