import Foundation
import Live
import LiveSimulator
import LiveTesting
import XCTest

/// The simulator checks frames the way the service does.
final class SimulatorVisionTests: SimulatorTestCase {
    func testAFrameThatIsNotAJPEGClosesWith1007() async throws {
        let (sim, client) = try await connected()
        try client.send(.realtimeInput(.video(Blob(mimeType: "image/png", data: Data([0x89, 0x50, 0x4E, 0x47])))))
        try await assertClosed(client, code: 1007, reason: "Request contains an invalid argument.")
        XCTAssertEqual(sim.stats().videoFramesRefused, 1)
    }

    func testFramesFasterThanOneASecondAreDroppedAndCounted() async throws {
        let (sim, client) = try await connected()
        // The smallest baseline JPEG header: SOI, SOF0 8×8 grey, EOI.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9])
        try client.send(.realtimeInput(.video(Blob(mimeType: "image/jpeg", data: jpeg))))
        try client.send(.realtimeInput(.video(Blob(mimeType: "image/jpeg", data: jpeg))))
        let stats = try await waitForStats(sim, "two frames seen") { $0.videoFrames.count + $0.videoFramesTooFast == 2 }
        XCTAssertEqual(stats.videoFrames.map(\.width), [8])
        XCTAssertEqual(stats.videoFramesTooFast, 1)
    }

    /// The text of the next reply (its output transcription, joined).
    func reply(_ client: SimTestClient) async throws -> String {
        let seen = try await client.collect(until: "turnComplete") { $0.isTurnComplete }
        return seen.compactMap { $0.serverContent?.outputTranscription?.text }.joined()
    }

    func testOnlyTurnsAboutThePictureAreAnsweredAboutIt() async throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let jpeg = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=blue:s=40x30", "-frames:v", "1", "-c:v", "mjpeg", "-f", "image2pipe", "-"])
        let (_, client) = try await connected(SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false))
        try client.send(.realtimeInput(.video(Blob(mimeType: "image/jpeg", data: jpeg))))
        try client.send(.clientContent(.userText("tell me a joke")))
        let joke = try await reply(client)
        XCTAssertFalse(joke.contains("I was shown"), "a frame between turns does not take over an unrelated turn: \(joke)")
        try client.send(.clientContent(.userText("what colour is this?")))
        let colour = try await reply(client)
        XCTAssertTrue(colour.contains("I was shown one image, 40 by 30 pixels"), colour)
        XCTAssertTrue(colour.contains("it is blue"), "decoded off the event loop, then answered: \(colour)")
    }

    func testFramesShownWhileTheUserSpeaksAreAnsweredAbout() async throws {
        guard FFmpegRunner.locate() != nil else { throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg)") }
        let jpeg = try FFmpegRunner.run(["-f", "lavfi", "-i", "color=c=red:s=32x24", "-frames:v", "1", "-c:v", "mjpeg", "-f", "image2pipe", "-"])
        let (sim, client) = try await connected(SimulatorOptions(replyDelay: .zero, turnCompleteAfterPlayback: false), setup: makeSetup(automatic: false))
        try client.send(.realtimeInput(.activityStart))
        try client.send(.realtimeInput(.video(Blob(mimeType: "image/jpeg", data: jpeg))))
        try sendAudio(client, milliseconds: 600)
        try client.send(.realtimeInput(.activityEnd))
        let answer = try await reply(client)
        XCTAssertTrue(answer.contains("I was shown one image, 32 by 24 pixels. On average it is red"), answer)
        XCTAssertEqual(sim.stats().videoFrames.map(\.duringUserActivity), [true])
    }
}
