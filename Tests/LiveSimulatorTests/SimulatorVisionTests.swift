import Foundation
import Live
import LiveSimulator
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
}
