import ParleyTime
import XCTest
@testable import PulseAudio
import PulseAudioTesting

final class GateTests: XCTestCase {
    func testClosedGateDeliversNothing() {
        var g = CaptureGate()
        XCTAssertFalse(g.chunkCaptured().deliver)
    }

    func testClosingMidChunkDeliversTheChunkInFlight() {
        var g = CaptureGate()
        g.set(open: true)
        XCTAssertEqual(g.chunkCaptured().deliver, true)
        g.set(open: false)              // closed while the next chunk was being captured
        let last = g.chunkCaptured()
        XCTAssertTrue(last.deliver)
        XCTAssertTrue(last.endsGate)
        XCTAssertFalse(g.chunkCaptured().deliver)
    }

    func testATapShorterThanAChunkStillDeliversIt() {
        var g = CaptureGate()
        g.set(open: true)
        g.set(open: false)
        let d = g.chunkCaptured()
        XCTAssertTrue(d.deliver)
        XCTAssertTrue(d.endsGate)
    }

    func testFakeSourceGateDeliversOnlyGatedChunksPlusTheLastPartialWord() throws {
        let source = FakeAudioSource(chunkMilliseconds: 20)
        let rec = ChunkRecorder()
        try source.open { rec.append($0) }
        let chunk = [Int16](repeating: 1000, count: 320)
        source.feed(chunk + chunk)                 // gate closed: nothing
        XCTAssertEqual(rec.all.count, 0)
        source.setGate(open: true)
        XCTAssertTrue(source.isGateOpen)
        source.feed(chunk + chunk)
        source.feed(Array(chunk.prefix(100)))      // the word in flight…
        source.setGate(open: false)                // …when the key is released
        source.feed(Array(chunk.dropFirst(100)))   // completes the chunk: delivered, marked
        source.feed(chunk)                         // closed: dropped
        let got = rec.all
        XCTAssertEqual(got.count, 3)
        XCTAssertEqual(got.map(\.endsGate), [false, false, true])
        XCTAssertEqual(got.map(\.sequence), [2, 3, 4])
        XCTAssertEqual(got[0].samples.count, 320)
        XCTAssertEqual(got[0].level.rmsDBFS, AudioLevel.dBFS(amplitude: 1000), accuracy: 0.01)
        // The meter hears everything, gate or not.
        XCTAssertGreaterThan(source.levels().rmsDBFS, -40)
        source.close()
    }

    func testRealTimeFakeSourceDeliversAtRealTime() throws {
        let tone = Signals.sine(frequency: 500, rate: 16_000, seconds: 0.2)
        let source = FakeAudioSource(samples: tone, realTime: true)
        let rec = ChunkRecorder()
        source.setGate(open: true)
        let start = TimeSource.monotonic.nanoseconds()
        try source.open { rec.append($0) }
        XCTAssertTrue(rec.wait(timeout: 5) { $0.count >= 10 })
        source.close()
        let elapsed = (Double(TimeSource.monotonic.nanoseconds() - start) / 1e9)
        XCTAssertGreaterThanOrEqual(elapsed, 0.18)
        XCTAssertEqual(Array(rec.samples.prefix(tone.count)), tone)
    }

    func testHalfDuplexMutesMicWhileModelSpeaks() {
        var g = HalfDuplexGate(protection: .halfDuplex)
        XCTAssertTrue(g.update(micDBFS: -30, playbackDBFS: -100, modelAnswering: false, at: 0), "model quiet: open")
        XCTAssertFalse(g.update(micDBFS: -30, playbackDBFS: -20, modelAnswering: true, at: 1), "echo: muted")
        XCTAssertTrue(g.statusDescription.contains("mic muted"))
        XCTAssertFalse(g.update(micDBFS: -15, playbackDBFS: -20, modelAnswering: true, at: 1.1), "not clearly louder")
        // Hang-over: still muted just after the model stops.
        XCTAssertFalse(g.update(micDBFS: -30, playbackDBFS: -100, modelAnswering: false, at: 1.2))
        XCTAssertTrue(g.update(micDBFS: -30, playbackDBFS: -100, modelAnswering: false, at: 1.6))
    }

    func testHalfDuplexLetsAClearlyLouderUserBargeIn() {
        var g = HalfDuplexGate(protection: .halfDuplex)
        XCTAssertFalse(g.update(micDBFS: -5, playbackDBFS: -25, modelAnswering: true, at: 0), "a click is not enough")
        XCTAssertFalse(g.update(micDBFS: -5, playbackDBFS: -25, modelAnswering: true, at: 0.02))
        XCTAssertTrue(g.update(micDBFS: -5, playbackDBFS: -25, modelAnswering: true, at: 0.08), "held: barge-in")
        XCTAssertFalse(g.update(micDBFS: -30, playbackDBFS: -25, modelAnswering: true, at: 0.1))
    }

    func testOtherProtectionsAlwaysPassAndSayWhy() {
        var ec = HalfDuplexGate(protection: .echoCancellation(method: "webrtc"))
        XCTAssertTrue(ec.update(micDBFS: -40, playbackDBFS: -10, modelAnswering: true, at: 0))
        XCTAssertTrue(ec.statusDescription.contains("cancelled (webrtc, PulseAudio module)"))
        var none = HalfDuplexGate(protection: .none)
        XCTAssertTrue(none.update(micDBFS: -40, playbackDBFS: -10, modelAnswering: true, at: 0))
        XCTAssertTrue(none.statusDescription.contains("headphones"))
        XCTAssertTrue(HalfDuplexGate.Protection.halfDuplex.description.contains("half-duplex"))
    }

    func testFakeSinkFlushAndDrain() throws {
        let events = ChunkEvents()
        let sink = FakeAudioSink(onEvent: { events.append($0) })
        XCTAssertFalse(sink.write([1, 2]), "closed")
        try sink.open()
        XCTAssertTrue(sink.write([1, 2, 3]))
        sink.flush()
        XCTAssertEqual(sink.pending, [])
        sink.write([4, 5])
        sink.drain()
        XCTAssertEqual(sink.played, [4, 5])
        XCTAssertEqual(sink.flushCount, 1)
        XCTAssertEqual(events.all, [.playbackFinished])
        XCTAssertTrue(sink.waitUntilIdle(timeout: 0))
        sink.close()
    }
}

final class CancellerGateTests: XCTestCase {
    func testAnAdaptingCancellerIsGuardedByTheGateThenFullDuplex() {
        var g = HalfDuplexGate(protection: .canceller)
        g.cancellerConverged = false
        XCTAssertFalse(g.update(micDBFS: -30, playbackDBFS: -20, modelAnswering: true, at: 0), "adapting: echo muted")
        XCTAssertTrue(g.statusDescription.contains("adapting"))
        g.cancellerConverged = true
        XCTAssertTrue(g.update(micDBFS: -30, playbackDBFS: -20, modelAnswering: true, at: 0.02), "converged: full duplex")
        XCTAssertFalse(g.statusDescription.contains("adapting"))
    }
}
