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

/// Issue 25, recording: the time line, the WAV writer, the recorder's threads and failures.
final class RecordingTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rec-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    static let rate = RecordingTimeline.rate

    /// `count` samples of a tone at `amplitude` (16 kHz for the mic, 24 kHz for the model).
    static func tone(_ count: Int, rate: Int, amplitude: Double = 8000) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
    }

    static func channel(_ interleaved: [Int16], _ c: Int) -> [Int16] { RecordedSound.channel(interleaved, c) }
    static func firstSound(_ samples: [Int16]) -> Int? { RecordedSound.firstSound(samples) }

    // MARK: - The time line

    func testTimelineInterleavesMicLeftAndModelRightAtTheirFramesWithSilenceBetween() {
        var t = RecordingTimeline()
        // 100 ms of mic (16 kHz) at 0.5 s, 200 ms of model (24 kHz) at 1 s.
        for i in 0..<5 { t.putMic(Self.tone(320, rate: 16_000), at: Self.rate / 2 + i * 480) }
        t.putModel(Self.tone(4800, rate: Self.rate), at: Self.rate)
        let out = t.take(upTo: 2 * Self.rate, limit: 10 * Self.rate)
        XCTAssertEqual(out.count, 2 * 2 * Self.rate, "two seconds of stereo frames")
        let left = Self.channel(out, 0), right = Self.channel(out, 1)
        let micStart = Self.firstSound(left) ?? -1
        XCTAssertEqual(Double(micStart), Double(Self.rate / 2), accuracy: 48, "the mic starts at 0.5 s (within 2 ms)")
        XCTAssertNil(Self.firstSound(Array(left[(Self.rate / 2 + 2500)...])), "the mic is silent after its 100 ms")
        XCTAssertEqual(Double(Self.firstSound(right) ?? -1), Double(Self.rate), accuracy: 3, "the model starts at 1 s")
        XCTAssertNil(Self.firstSound(Array(right[..<Self.rate])), "the model is silent before")
        XCTAssertNil(Self.firstSound(Array(right[(Self.rate + 4800)...])), "and after its 200 ms")
        XCTAssertEqual(t.written, 2 * Self.rate)
        XCTAssertEqual(t.pending, 0)
    }

    func testMicChunksWithJitteryStampsJoinWithoutGapsOrOverlaps() {
        var t = RecordingTimeline()
        // Stamps 3 ms early and late around a steady 20 ms: the chunks still follow each other.
        let jitter = [0, 72, -72, 48, -24, 0, 72, -48, 24, 0]
        for (i, j) in jitter.enumerated() { t.putMic(Self.tone(320, rate: 16_000), at: 1000 + i * 480 + j) }
        let left = Self.channel(t.take(upTo: 10_000), 0)
        // A joined 440 Hz tone has no run of near-zero samples longer than a half period's zero crossing.
        let speech = left[1100..<(1000 + 10 * 480 - 100)]
        var quiet = 0, longest = 0
        for s in speech {
            quiet = abs(Int(s)) < 200 ? quiet + 1 : 0
            longest = max(longest, quiet)
        }
        XCTAssertLessThan(longest, 10, "no gap where chunks meet")
    }

    func testCutModelDropsWhatWasQueuedPastTheCut() {
        var t = RecordingTimeline()
        t.putModel(Self.tone(2 * Self.rate, rate: Self.rate), at: 0)  // 2 s queued
        let first = t.take(upTo: Self.rate / 2)                       // 0.5 s played and written
        XCTAssertNotNil(Self.firstSound(Self.channel(first, 1)))
        t.cutModel(from: Self.rate)                                    // barge-in at 1 s
        let rest = Self.channel(t.take(upTo: 3 * Self.rate, limit: 10 * Self.rate), 1)
        XCTAssertEqual(rest.count, 5 * Self.rate / 2)
        XCTAssertNotNil(Self.firstSound(Array(rest[..<(Self.rate / 2)])), "0.5–1 s was heard")
        XCTAssertNil(Self.firstSound(Array(rest[(Self.rate / 2)...])), "nothing after the cut")
    }

    func testSamplesThatArriveAfterTheirFramesWereWrittenAreDroppedNotShifted() {
        var t = RecordingTimeline()
        _ = t.take(upTo: 1000)
        t.putModel([Int16](repeating: 5000, count: 500), at: 800)  // 200 too late, 300 in time
        let right = Self.channel(t.take(upTo: 2000), 1)
        XCTAssertEqual(right.prefix(300), ArraySlice(repeating: 5000, count: 300))
        XCTAssertEqual(Set(right.dropFirst(300)), [0])
    }

    // MARK: - The WAV file

    func testWAVHeaderIsRightAfterCloseAndAtEachCheckpoint() throws {
        let path = dir + "/a.wav"
        let wav = try WAVRecording(path: path)
        let frames = (0..<Self.rate).flatMap { i -> [Int16] in [Int16(i % 1000), Int16(-(i % 1000))] }
        try wav.write(frames)
        wav.checkpoint()
        // Mid-conversation (a kill now) the file already reads whole.
        let mid = try WAVFile.readContents(URL(fileURLWithPath: path))
        XCTAssertEqual(mid.samples.count, frames.count)
        try wav.write(frames)
        try wav.close()
        let c = try WAVFile.readContents(URL(fileURLWithPath: path))
        XCTAssertEqual(c.sampleRate, Self.rate)
        XCTAssertEqual(c.channels, 2)
        XCTAssertEqual(c.samples, frames + frames, "interleaved left/right exactly as written")
        XCTAssertEqual(c.duration, 2, accuracy: 0.001)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        XCTAssertEqual(size, 44 + 4 * 2 * Self.rate)
        XCTAssertNoThrow(try wav.close(), "closing twice is harmless")
    }

    // MARK: - The recorder

    /// A recorder on a hand-moved clock writing a WAV into `dir`, with what it reported.
    func recorder(_ clock: ManualTime, opener: @escaping @Sendable (RecordingFormat, String) throws -> any RecordingOutput = { try $0.open(base: $1) })
        -> (ConversationRecorder, Reports) {
        let reported = Reports()
        let r = ConversationRecorder(base: dir + "/session", format: .wav, time: clock.source,
                                     opener: opener) { e in
            reported.append(e)
        }
        return (r, reported)
    }

    func chunk(_ samples: [Int16], endingAt t: Double) -> AudioChunk {
        AudioChunk(samples: samples, timestamp: UInt64(t * 1e9), level: AudioLevel(measuring: samples), sequence: 0)
    }

    func testRecorderPlacesTheMicAndTheModelWhereTheyHappenedAndRecordsCarryThoseOffsets() throws {
        let clock = ManualTime(100)
        let (r, reported) = recorder(clock)
        guard case .started(let path) = r.start() else { return XCTFail("started") }
        XCTAssertEqual(path, dir + "/session.wav")
        // 0.3 s of silence, then 0.5 s of speech in 20 ms chunks as the capture thread delivers them.
        for _ in 0..<15 { clock.advance(0.02); r.mic(chunk([Int16](repeating: 0, count: 320), endingAt: clock.now)) }
        for _ in 0..<25 { clock.advance(0.02); r.mic(chunk(Self.tone(320, rate: 16_000), endingAt: clock.now)) }
        XCTAssertEqual(r.offset(for: .user) ?? -1, 0.30, accuracy: 0.02, "the user line points at the start of the speech")
        // The reply arrives 0.4 s later, faster than real time: it queues behind itself.
        clock.advance(0.4)
        for _ in 0..<10 { r.model(Self.tone(2400, rate: Self.rate)) }  // 1 s of reply
        XCTAssertEqual(r.offset(for: .model) ?? -1, 1.20, accuracy: 0.01, "the model line points at its first sound")
        clock.advance(1.5)
        r.replyEnded()
        r.close()
        XCTAssertEqual(reported.all, [])
        let c = try WAVFile.readContents(URL(fileURLWithPath: path))
        XCTAssertEqual(c.channels, 2)
        XCTAssertEqual(c.duration, 2.7, accuracy: 0.01, "recorded until the close")
        let left = Self.channel(c.samples, 0), right = Self.channel(c.samples, 1)
        XCTAssertEqual(Double(Self.firstSound(left) ?? -1) / Double(Self.rate), 0.30, accuracy: 0.005)
        XCTAssertEqual(Double(Self.firstSound(right) ?? -1) / Double(Self.rate), 1.20, accuracy: 0.005)
        XCTAssertNil(Self.firstSound(Array(right[(Int(2.21 * Double(Self.rate)))...])), "the reply lasts its 1 s")
        XCTAssertNil(Self.firstSound(Array(left[(Int(0.81 * Double(Self.rate)))...])), "the speech lasts its 0.5 s")
    }

    func testAPauseLeavesNoGapAndRecordsWhilePausedHaveNoOffset() throws {
        let clock = ManualTime(100)
        let (r, _) = recorder(clock)
        _ = r.start()
        clock.advance(1)
        guard case .stopped = r.stop() else { return XCTFail("stopped") }
        XCTAssertFalse(r.isRecording)
        XCTAssertNil(r.offset(for: .system))
        r.model(Self.tone(2400, rate: Self.rate))  // not recorded while paused
        clock.advance(60)
        _ = r.start()
        XCTAssertEqual(r.offset(for: .system) ?? -1, 1, accuracy: 0.001, "the file goes on where it paused")
        clock.advance(0.5)
        r.model(Self.tone(2400, rate: Self.rate))
        clock.advance(0.5)
        r.close()
        let c = try WAVFile.readContents(URL(fileURLWithPath: dir + "/session.wav"))
        XCTAssertEqual(c.duration, 2, accuracy: 0.01)
        XCTAssertEqual(Double(Self.firstSound(Self.channel(c.samples, 1)) ?? -1) / Double(Self.rate), 1.5, accuracy: 0.005)
    }

    func testBargeInCutsTheRecordedReplyWhereTheSpeakerWentQuiet() throws {
        let clock = ManualTime(100)
        let (r, _) = recorder(clock)
        _ = r.start()
        r.model(Self.tone(3 * Self.rate, rate: Self.rate))  // 3 s queued at once
        clock.advance(1)
        r.modelCut()
        clock.advance(1)
        r.close()
        let right = Self.channel(try WAVFile.readContents(URL(fileURLWithPath: dir + "/session.wav")).samples, 1)
        XCTAssertEqual(right.count, 2 * Self.rate)
        XCTAssertNotNil(Self.firstSound(Array(right[..<Self.rate])))
        XCTAssertNil(Self.firstSound(Array(right[(Self.rate + 10)...])), "what was never heard is not in the file")
    }

    func testAFullDiskIsReportedOnceStopsTheRecordingAndLeavesAValidFile() throws {
        let clock = ManualTime(100)
        // A disk with room for half a second of sound.
        let limit = 44 + Self.rate * 2 * 2 / 2
        let (r, reported) = recorder(clock) { _, base in try LimitedWAV(path: base + ".wav", limit: limit) }
        _ = r.start()
        for _ in 0..<100 { clock.advance(0.02); r.mic(chunk(Self.tone(320, rate: 16_000), endingAt: clock.now)) }
        let failed = eventually(timeout: 5, "the failure to be reported") { !reported.all.isEmpty }
        XCTAssertTrue(failed)
        for _ in 0..<50 { clock.advance(0.02); r.mic(chunk(Self.tone(320, rate: 16_000), endingAt: clock.now)) }
        r.close()
        let events = reported.all
        XCTAssertEqual(events.count, 1, "reported once: \(events)")
        guard case .failed(let f) = events.first else { return XCTFail("a failure: \(events)") }
        XCTAssertTrue(f.message.contains("disk is full"), f.message)
        XCTAssertFalse(r.isRecording)
        guard case .failed = r.start() else { return XCTFail("a stopped recording does not start again") }
        let c = try WAVFile.readContents(URL(fileURLWithPath: dir + "/session.wav"))
        XCTAssertEqual(c.channels, 2)
        XCTAssertGreaterThan(c.duration, 0.2, "what fitted is kept")
        XCTAssertLessThanOrEqual(c.duration, 0.5)
    }

    func testAConversationThatAlreadyHasARecordingGetsTheNextName() throws {
        try WAVRecording(path: dir + "/session.wav").close()
        let r = ConversationRecorder(base: dir + "/session", format: .wav, time: ManualTime().source) { _ in }
        XCTAssertEqual(r.start(), .started(path: dir + "/session-2.wav"))
        r.close()
        XCTAssertEqual(try WAVFile.readContents(URL(fileURLWithPath: dir + "/session-2.wav")).channels, 2)
    }

    func testAnUnwritableDirectoryFailsAtTheStartInWords() throws {
        let file = dir + "/not-a-directory"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        let r = ConversationRecorder(base: file + "/session", format: .wav, time: ManualTime().source) { _ in }
        guard case .failed(let f) = r.start() else { return XCTFail("fails") }
        XCTAssertTrue(f.message.contains("cannot create"), f.message)
        XCTAssertFalse(r.isRecording)
        r.close()
    }

    func testAWriterThatFallsBehindNeverHoldsUpTheAudioThreadAndSaysSoOnce() throws {
        let clock = ManualTime(100)
        let gate = DispatchSemaphore(value: 0)
        let (r, reported) = recorder(clock) { _, base in StuckOutput(path: base + ".raw", gate: gate) }
        _ = r.start()
        // 30 s of reply audio handed over at once, while the disk is stuck.
        let started = Date()
        let reply = Self.tone(2400, rate: Self.rate)
        for _ in 0..<300 { r.model(reply) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "the audio side went on")
        let behind = reported.all
        XCTAssertEqual(behind.count, 1)
        guard case .fellBehind(let s) = behind.first else { return XCTFail("fell behind: \(behind)") }
        XCTAssertGreaterThan(s, 0)
        gate.signal()
        r.close()
    }

    /// `PARLEY_BENCH=1`: how fast the writer turns ten minutes of conversation (20 ms mic chunks, 100 ms reply
    /// chunks) into a WAV, in seconds of sound per second of wall time.
    func testBenchmarkWriterThroughput() throws {
        guard ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1" else { throw XCTSkip("PARLEY_BENCH=1 to run") }
        let clock = ManualTime(100)
        let (r, reported) = recorder(clock)
        _ = r.start()
        let mic = Self.tone(320, rate: 16_000), reply = Self.tone(2400, rate: Self.rate)
        let seconds = 600
        let started = Date()
        for i in 0..<(seconds * 50) {
            clock.advance(0.02)
            r.mic(chunk(mic, endingAt: clock.now))
            if i % 5 == 0 { r.model(reply) }
        }
        let handed = Date().timeIntervalSince(started)
        r.close()
        let total = Date().timeIntervalSince(started)
        print("recording benchmark: \(seconds) s of stereo sound handed over in \(Int(handed * 1000)) ms, written in \(Int(total * 1000)) ms: \(Int(Double(seconds) / total))× real time; reported \(reported.all)")
        XCTAssertEqual(try WAVFile.readContents(URL(fileURLWithPath: dir + "/session.wav")).duration, Double(seconds), accuracy: 0.1)
    }

    // MARK: - Settings

    func testRecordingSettingsAreReadCheckedAndPrinted() throws {
        var c = Config()
        XCTAssertEqual(c.recording, RecordingSettings(enabled: false, format: .auto))
        try c.apply(toml: "[recording]\nenabled = true\nformat = \"WAV\"\n", file: "c.toml")
        XCTAssertEqual(c.recording, RecordingSettings(enabled: true, format: .wav))
        XCTAssertTrue(c.printed.contains("[recording]\nenabled = true\nformat = \"wav\""), c.printed)
        XCTAssertThrowsError(try c.apply(toml: "[recording]\nformat = \"mp3\"\n", file: "c.toml")) { e in
            XCTAssertTrue("\(e)".contains("format"), "\(e)")
        }
        XCTAssertThrowsError(try c.apply(toml: "[recording]\ndirectory = \"/x\"\n", file: "c.toml")) { e in
            XCTAssertTrue("\(e)".contains("unknown setting"), "\(e)")
        }
    }

    // MARK: - The offsets, read back

    func testOffsetsAreSavedReadBackAndShownInHistoryAndTheExport() throws {
        let store = try TranscriptStore(directory: dir)
        var user = TranscriptRecord.line(speaker: .user, text: "what is the time", interrupted: false)
        user.recordingOffset = 192.25
        var model = TranscriptRecord.line(speaker: .model, text: "ten past three", interrupted: false)
        model.recordingOffset = 3725
        store.append(.session(model: "m", voice: "Puck"))
        store.append(user)
        store.append(model)
        store.append(.line(speaker: .user, text: "not recorded", interrupted: false))
        store.close()
        let records = try TranscriptStore.read(store.path)
        XCTAssertEqual(records.map(\.recordingOffset), [nil, 192.25, 3725, nil])
        let shown = HistoryPrinter(color: false, width: nil).conversation("session-x", records)
        XCTAssertTrue(shown.contains("[03:12] what is the time"), shown)
        XCTAssertTrue(shown.contains("[1:02:05] ten past three"), shown)
        XCTAssertTrue(shown.contains("You     not recorded"), shown)
        let md = TranscriptStore.markdown(records, title: "t")
        XCTAssertTrue(md.contains("**You:** `[03:12]` what is the time"), md)
        XCTAssertTrue(md.contains("**You:** not recorded"), md)
    }
}

/// What a recorder reported, from any thread.
final class Reports: Sendable {
    private let events = Mutex<[RecordingEvent]>([])
    func append(_ e: RecordingEvent) { events.withLock { $0.append(e) } }
    var all: [RecordingEvent] { events.withLock { $0 } }
}

/// A WAV on a disk that is full after `limit` bytes.
final class LimitedWAV: RecordingOutput {
    let inner: WAVRecording
    let limit: Int
    var written = 44
    var path: String { inner.path }
    init(path: String, limit: Int) throws(RecordingFailure) {
        inner = try WAVRecording(path: path)
        self.limit = limit
    }
    func write(_ interleaved: [Int16]) throws(RecordingFailure) {
        let room = (limit - written) / 4 * 2
        if room < interleaved.count {
            try inner.write(Array(interleaved.prefix(max(0, room))))
            written = limit
            try? inner.close()
            throw RecordingFailure.io(ENOSPC, path: path, doing: "write")
        }
        try inner.write(interleaved)
        written += interleaved.count * 2
    }
    func checkpoint() { inner.checkpoint() }
    func close() throws(RecordingFailure) { try inner.close() }
}

/// An output whose first write waits until the test lets it go (a disk that hangs).
final class StuckOutput: RecordingOutput {
    let path: String
    let gate: DispatchSemaphore
    var waited = false
    init(path: String, gate: DispatchSemaphore) { self.path = path; self.gate = gate }
    func write(_ interleaved: [Int16]) throws(RecordingFailure) {
        if !waited { waited = true; gate.wait() }
    }
    func checkpoint() {}
    func close() throws(RecordingFailure) {}
}

