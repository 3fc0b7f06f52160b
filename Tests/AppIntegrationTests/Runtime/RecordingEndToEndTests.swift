import Foundation
import LiveSimulator
import ParleyTesting
import TUI
import XCTest

@testable import App

/// Issue 25's "done when": a conversation recorded against the simulator holds the test's speech on the left
/// and the simulator's reply on the right, at the offsets its transcript records (within 50 ms).
final class RecordingEndToEndTests: XCTestCase {
    func testARecordedConversationHoldsEachSideAtItsTranscriptOffsets() async throws {
        guard FFmpegLocator.ffmpeg != nil, FFmpegLocator.ffprobe != nil else { throw XCTSkip("ffmpeg/ffprobe not installed") }
        let h = try await RuntimeHarness(transcripts: true, configure: { $0.recording.enabled = true })
        h.start()
        h.waitUntilLive()
        let startedAt = h.clock.now
        XCTAssertTrue(h.header.contains("● REC"), "the header shows REC from the start: \(h.header)")

        // Half a second of nothing, then 400 ms of speech as the capture thread delivers it, 20 ms at a time.
        h.advance(0.5)
        h.spaceDown()
        h.wait("the mic to open") { h.mic.isGateOpen }
        for _ in 0..<20 {
            h.clock.advance(0.02)
            h.speak(milliseconds: 20)
        }
        h.advance(0.3)
        h.spaceUp()
        h.wait("the mic to close") { !h.mic.isGateOpen }
        h.speak(milliseconds: 20)
        h.waitForScreen("Hello! Yes, I can hear you clearly.")
        guard let transcript = h.launch.store?.path, let recording = h.launch.recorder?.path else { return XCTFail("saved and recorded") }
        h.wait("both lines in the transcript") {
            let kinds = ((try? TranscriptStore.read(transcript)) ?? []).map(\.kind)
            return kinds.contains(.user) && kinds.contains(.model)
        }
        // Let the reply play out on the clock, then close the file as quitting does.
        let reply = Double(h.speaker.played.count + h.speaker.pending.count) / 24_000
        h.advance(reply + 0.5)
        h.launch.recorder?.close()
        let elapsed = h.clock.now - startedAt

        XCTAssertEqual((recording as NSString).deletingPathExtension, (transcript as NSString).deletingPathExtension, "beside the transcript")
        XCTAssertTrue(recording.hasSuffix(".ogg"), recording)
        let probe = try FFmpegLocator.probe(recording)
        XCTAssertEqual(probe.channels, 2)
        XCTAssertEqual(probe.codec, "opus")
        XCTAssertEqual(probe.duration, elapsed, accuracy: 0.1, "as long as the conversation was recorded")

        let records = try TranscriptStore.read(transcript)
        guard let user = records.first(where: { $0.kind == .user })?.recordingOffset,
              let model = records.first(where: { $0.kind == .model })?.recordingOffset
        else { return XCTFail("user and model records carry offsets: \(records)") }
        let samples = try FFmpegLocator.decode(recording)
        let left = RecordedSound.channel(samples, 0), right = RecordedSound.channel(samples, 1)
        let heardUser = Double(RecordedSound.firstSound(left) ?? -24_000) / 24_000
        let heardModel = Double(RecordedSound.firstSound(right) ?? -24_000) / 24_000
        print("recording: user at \(heardUser) s (transcript \(user)), model at \(heardModel) s (transcript \(model)), \(probe.duration) s")
        XCTAssertEqual(heardUser, 0.5, accuracy: 0.05, "the speech began half a second in")
        XCTAssertEqual(heardUser, user, accuracy: 0.05, "the user line points at the speech")
        XCTAssertEqual(heardModel, model, accuracy: 0.05, "the model line points at the reply")
        XCTAssertGreaterThan(heardModel, heardUser + 0.4, "the reply follows the speech")
        // The mic is quiet between the speech and the chunk in flight when Space was let go (at 1.18 s).
        XCTAssertNil(RecordedSound.firstSound(Array(left[Int((heardUser + 0.45) * 24_000)..<Int(1.15 * 24_000)])), "the mic is quiet after the speech")
        XCTAssertNil(RecordedSound.firstSound(Array(right[..<Int(heardModel * 24_000)])), "the model is quiet before its reply")
        await h.stop()
    }
}
