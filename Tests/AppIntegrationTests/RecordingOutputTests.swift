@testable import Conversation
import Foundation
import ParleyTesting
import PulseAudio
import Synchronization
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// Issue 25: the recording's files where they need the world: ffmpeg for Ogg Opus, a real full disk.
final class RecordingOutputTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-recout-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    static let rate = RecordingTimeline.rate

    static func tone(_ count: Int, rate: Int) -> [Int16] {
        (0..<count).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
    }

    func chunk(_ samples: [Int16], endingAt t: Double) -> AudioChunk {
        AudioChunk(samples: samples, timestamp: UInt64(t * 1e9), level: AudioLevel(measuring: samples), sequence: 0)
    }

    func testOpusThroughFFmpegIsAValidTwoChannelFileOfTheRightLength() throws {
        guard let ffmpeg = FFmpegLocator.ffmpeg, FFmpegLocator.ffprobe != nil else { throw XCTSkip("ffmpeg/ffprobe not installed") }
        let path = dir + "/a.ogg"
        let opus = try OpusRecording(path: path, ffmpeg: ffmpeg)
        var t = RecordingTimeline()
        t.putModel(Self.tone(Self.rate, rate: Self.rate), at: Self.rate)
        try opus.write(t.take(upTo: 3 * Self.rate, limit: 10 * Self.rate))
        try opus.close()
        let probe = try FFmpegLocator.probe(path)
        XCTAssertEqual(probe.channels, 2)
        XCTAssertEqual(probe.codec, "opus")
        XCTAssertEqual(probe.duration, 3, accuracy: 0.05)
    }

    func testATinyFullTmpfsStopsTheRecordingCleanly() throws {
        let mountPoint = dir + "/tiny"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k") == 0 else { throw XCTSkip("cannot mount a tmpfs here (errno \(errno))") }
        defer { umount2(mountPoint, 2) }  // MNT_DETACH
        let clock = ManualTime(100)
        let reported = Shared(Mutex<[RecordingEvent]>([]))
        let r = ConversationRecorder(base: mountPoint + "/session", format: .wav, time: clock.source) { e in reported.value.withLock { $0.append(e) } }
        _ = r.start()
        for _ in 0..<100 { clock.advance(0.02); r.mic(chunk(Self.tone(320, rate: 16_000), endingAt: clock.now)) }
        XCTAssertTrue(eventually(timeout: 5, "the full disk reported") { !reported.value.withLock { $0 }.isEmpty })
        r.close()
        guard case .failed(let f) = reported.value.withLock({ $0 }).first else { return XCTFail("failed") }
        XCTAssertTrue(f.message.contains("disk is full"), f.message)
        let c = try WAVFile.readContents(URL(fileURLWithPath: mountPoint + "/session.wav"))
        XCTAssertEqual(c.channels, 2)
        XCTAssertGreaterThan(c.samples.count, 0)
    }

}

/// A lock shared with the recorder's threads.
private final class Shared: Sendable {
    let value: Mutex<[RecordingEvent]>
    init(_ value: consuming Mutex<[RecordingEvent]>) { self.value = value }
}
