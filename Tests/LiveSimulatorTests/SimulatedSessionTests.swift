import Foundation
import Live
@testable import LiveSimulator
import LiveTesting
import XCTest

/// Drives the session state machine with an injected clock: no sockets, no waiting, exact timings.
struct SessionDriver {
    var session: SimulatedSession
    let store: SimulatorStore
    var now: Duration = .zero
    var timers: [SimulatedSession.Timer: Duration] = [:]
    var sent: [(at: Duration, message: ServerMessage)] = []
    var raw: [String] = []
    var closed: CloseReason?
    var dropped = false

    init(_ options: SimulatorOptions = .init(), keyAccepted: Bool = true) {
        store = SimulatorStore(scope: options.faultScope)
        session = SimulatedSession(options: options, directory: store, keyAccepted: keyAccepted, connection: 1)
    }

    mutating func receive(_ message: ClientMessage) throws {
        apply(session.receive(Data(try LiveCodec().encode(message).utf8), now: now))
    }

    /// Runs the clock forward, firing timers in order.
    mutating func advance(to end: Duration) {
        while let (timer, at) = timers.min(by: { $0.value < $1.value }), at <= end {
            timers[timer] = nil
            now = at
            apply(session.timerFired(timer, now: now))
        }
        now = end
    }

    mutating func apply(_ actions: [SimulatedSession.Action]) {
        for a in actions {
            switch a {
            case .send(let m): sent.append((now, m))
            case .sendRaw(let t): raw.append(t)
            case .close(let r): closed = r
            case .drop: dropped = true
            case .schedule(let t, let after): timers[t] = now + after
            case .cancel(let t): timers[t] = nil
            // The connection decodes off its event loop; the driver does it at once.
            case .decodeColour(let jpeg, let turn): apply(session.colourDecoded(try? FrameColour.average(ofJPEG: jpeg), turn: turn, now: now))
            }
        }
    }

    func first(_ predicate: (ServerMessage) -> Bool) -> (at: Duration, message: ServerMessage)? {
        sent.first { predicate($0.message) }
    }
}

final class SimulatedSessionTests: XCTestCase {
    func testReplyIsPacedFasterThanRealTimeAndCompletesAfterPlayback() throws {
        var d = SessionDriver(SimulatorOptions(replyDelay: .milliseconds(200), audioSpeedup: 4))
        try d.receive(.setup(makeSetup()))
        try d.receive(.clientContent(.userText("one two three four five six")))
        d.advance(to: .seconds(30))

        let audio = d.sent.filter { !$0.message.audio.isEmpty }
        let firstAudio = try XCTUnwrap(audio.first)
        XCTAssertEqual(firstAudio.at, .milliseconds(200), "the reply starts after replyDelay")
        let audioSeconds = Double(audio.reduce(0) { $0 + $1.message.audio.count }) / 48_000
        let lastAudio = try XCTUnwrap(audio.last).at
        XCTAssertLessThanOrEqual(lastAudio - .milliseconds(200), .seconds(audioSeconds / 4))
        // Bursts: audio messages share send times.
        XCTAssertLessThan(Set(audio.map(\.at)).count, audio.count)

        let generation = try XCTUnwrap(d.first { $0.serverContent?.generationComplete == true })
        let done = try XCTUnwrap(d.first { $0.isTurnComplete })
        XCTAssertLessThan(generation.at, done.at)
        XCTAssertEqual(SimulatedSession.seconds(done.at - .milliseconds(200)), audioSeconds, accuracy: 0.01,
                       "turnComplete when playback would end")
        XCTAssertNotNil(done.message.usageMetadata)
        XCTAssertEqual(d.sent.last?.message.sessionResumptionUpdate?.resumable, true)
        XCTAssertTrue(d.timers.isEmpty)
    }

    func testBargeInWithinPlaybackInterruptsEvenAfterGenerationComplete() throws {
        var d = SessionDriver(SimulatorOptions(replyDelay: .zero, audioSpeedup: 4))
        try d.receive(.setup(makeSetup(automatic: true)))
        try d.receive(.clientContent(.userText("one two three four five six")))
        let generation = d.timers[.replyStep]
        XCTAssertNotNil(generation)
        // Run until generation is complete but playback is not.
        while d.first({ $0.serverContent?.generationComplete == true }) == nil, let next = d.timers.values.min() {
            d.advance(to: next)
        }
        XCTAssertNil(d.first { $0.isTurnComplete })
        for _ in 0..<3 { try d.receive(.realtimeInput(.micAudio(pcm16k(milliseconds: 20)))) }
        let tail = d.sent.suffix(3).map(\.message)
        XCTAssertEqual(tail[0].serverContent?.interrupted, true)
        XCTAssertEqual(tail[1].serverContent?.turnComplete, true)
        XCTAssertEqual(tail[2].sessionResumptionUpdate?.resumable, true)
        XCTAssertNil(d.timers[.replyStep], "the rest of the reply is not sent")
        XCTAssertEqual(d.store.stats.interruptions, 1)
    }

    func testSpeechAfterPlaybackIsANewTurnNotABargeIn() throws {
        var d = SessionDriver(SimulatorOptions(replyDelay: .zero))
        try d.receive(.setup(makeSetup(automatic: true)))
        try d.receive(.clientContent(.userText("hi")))
        d.advance(to: .seconds(30))
        for _ in 0..<50 { try d.receive(.realtimeInput(.micAudio(pcm16k(milliseconds: 20)))) }
        XCTAssertFalse(d.sent.contains { $0.message.serverContent?.interrupted == true })
        for _ in 0..<30 { try d.receive(.realtimeInput(.micAudio(pcm16k(milliseconds: 20, amplitude: 0)))) }
        XCTAssertEqual(d.store.stats.userTurns, ["hi", "Hello, can you hear me?"])
    }

    func testNoInterruptionHandlingKeepsTalking() throws {
        var d = SessionDriver(SimulatorOptions(replyDelay: .zero))
        var setup = makeSetup(automatic: false)
        setup.realtimeInputConfig?.activityHandling = "NO_INTERRUPTION"
        try d.receive(.setup(setup))
        try d.receive(.clientContent(.userText("one two three four")))
        try d.receive(.realtimeInput(.activityStart))
        XCTAssertFalse(d.sent.contains { $0.message.serverContent?.interrupted == true })
        XCTAssertNotNil(d.timers[.replyStep])
    }

    func testGoAwayThenCloseTimeline() throws {
        var d = SessionDriver(SimulatorOptions(goAwayAfter: .seconds(5), goAwayTimeLeft: .milliseconds(1500)))
        try d.receive(.setup(makeSetup()))
        d.advance(to: .seconds(5))
        XCTAssertEqual(d.first { $0.goAway != nil }?.message.goAway?.timeLeft, "1.5s")
        XCTAssertNil(d.closed)
        d.advance(to: .milliseconds(6499))
        XCTAssertNil(d.closed)
        d.advance(to: .milliseconds(6500))
        XCTAssertEqual(d.closed, CloseReason(code: 1000, reason: ""))
    }

    func testNothingIsAnsweredBeforeSetupOrAfterClose() throws {
        var d = SessionDriver(keyAccepted: false)
        try d.receive(.setup(makeSetup()))
        XCTAssertEqual(d.closed?.code, 1007)
        XCTAssertTrue(d.sent.isEmpty)
        try d.receive(.clientContent(.userText("hi")))
        XCTAssertTrue(d.sent.isEmpty)
    }

    func testGarbageNeverCrashes() {
        var d = SessionDriver()
        for bytes in [Data(), Data([0xff, 0xfe]), Data("null".utf8), Data("[]".utf8), Data("{}".utf8), Data(#"{"setup":7}"#.utf8)] {
            d = SessionDriver()
            d.apply(d.session.receive(bytes, now: .zero))
            XCTAssertEqual(d.closed, CloseReason(code: 1007, reason: "Request contains an invalid argument."))
        }
    }

    func testAudioTurnIsTranscribedWhileTheUserTalks() throws {
        var d = SessionDriver(SimulatorOptions(replyDelay: .zero, audioTranscripts: ["one two three four five six"]))
        try d.receive(.setup(makeSetup(automatic: false)))
        try d.receive(.realtimeInput(.activityStart))
        for _ in 0..<50 { try d.receive(.realtimeInput(.micAudio(pcm16k(milliseconds: 20)))) }
        let during = d.sent.compactMap { $0.message.serverContent?.inputTranscription?.text }.joined()
        XCTAssertEqual(during, "one two three", "a word per 300 ms of speech")
        try d.receive(.realtimeInput(.activityEnd))
        let all = d.sent.map(\.message)
        XCTAssertEqual(all.inputTranscript, "one two three four five six")
        XCTAssertEqual(all.last { $0.serverContent?.inputTranscription != nil }?.serverContent?.inputTranscription?.finished, true)
    }
}
