import Foundation
import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// A WAV file written by sox reads back (sox runs as a child process).
final class SoxWAVTests: XCTestCase {
    func testSoxWrittenFileReads() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { throw XCTSkip("sox not installed") }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sox-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = ["-n", "-r", "22050", "-c", "2", "-b", "16", url.path, "synth", "0.3", "sine", "1000"]
        try p.run()
        p.waitUntilExit()
        let c = try WAVFile.readContents(url)
        XCTAssertEqual(c.sampleRate, 22_050)
        XCTAssertEqual(c.channels, 2)
        XCTAssertEqual(c.samples.count, 2 * 6615)
        XCTAssertEqual(Signals.frequency(c.mono, rate: 22_050), 1000, accuracy: 5)
    }
}
