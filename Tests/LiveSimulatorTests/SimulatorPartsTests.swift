import Foundation
import Live
@testable import LiveSimulator
import LiveTesting
import XCTest

/// The pure parts: reply script, VAD, synthesiser.
final class SimulatorPartsTests: XCTestCase {
    func testScriptedCallsParse() {
        let calls = ReplyScript.scriptedCalls(in: #"please call a {"x":{"y":"}"}} and call b_2 and Call c {bad json}"#)
        XCTAssertEqual(calls.map(\.name), ["a", "b_2", "c"])
        XCTAssertEqual(calls.first?.args, ["x": ["y": "}"]])
        XCTAssertEqual(calls.last?.args, .object([:]))
        XCTAssertEqual(ReplyScript.scriptedCalls(in: "recall nothing"), [])
    }

    func testIntent() {
        XCTAssertEqual(ReplyScript.intent(for: "What's the time?", declaredTools: ["get_current_time"]),
                       .callTools([.init(name: "get_current_time", args: .object([:]))]))
        XCTAssertEqual(ReplyScript.intent(for: "sometimes", declaredTools: ["get_current_time"]), .speak("You said: sometimes."))
        XCTAssertEqual(ReplyScript.intent(for: "call nope", declaredTools: []), .speak("I can't call nope, it isn't one of my tools."))
    }

    func testVADStartsAndEnds() {
        var vad = EnergyVAD(sampleRate: 16_000, threshold: 600, silence: .milliseconds(500))
        XCTAssertEqual(vad.process(pcm16k(milliseconds: 300, amplitude: 0)), [])
        // Odd-sized chunks still line up.
        let loud = pcm16k(milliseconds: 200)
        XCTAssertEqual(vad.process(loud.prefix(333)) + vad.process(loud.dropFirst(333)), [.speechStarted])
        XCTAssertEqual(vad.process(pcm16k(milliseconds: 480, amplitude: 0)), [])
        XCTAssertEqual(vad.process(pcm16k(milliseconds: 40, amplitude: 0)), [.speechEnded])
    }

    func testPitchRangeAndStability() {
        for v in Voice.all {
            let p = VoiceSynth.pitch(for: v.name)
            XCTAssertTrue((90...260).contains(p), v.name)
        }
        XCTAssertEqual(VoiceSynth.pitch(for: "Puck"), VoiceSynth.pitch(for: "puck"))
        XCTAssertGreaterThan(Set(Voice.all.map { VoiceSynth.pitch(for: $0.name) }).count, 25, "voices mostly differ")
    }

    func testWordAudioIsVoiceLike() {
        let synth = VoiceSynth(voiceName: "Puck")
        let samples = synth.word("hello,", index: 0)
        let seconds = Double(samples.count) / 24_000
        XCTAssertGreaterThan(seconds, 0.3)
        XCTAssertLessThan(seconds, 1)
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        XCTAssertGreaterThan(peak, 8000)
        XCTAssertLessThan(peak, 32767)
        XCTAssertEqual(samples.suffix(24_000 / 10).filter { $0 != 0 }.count, 0, "a pause after punctuation")
    }

    func testCloseReasonIsTruncatedToFit() {
        let long = String(repeating: "é", count: 100)
        let cut = SimulatorConnectionHandler.truncated(long, maxBytes: 123)
        XCTAssertLessThanOrEqual(cut.utf8.count, 123)
        XCTAssertEqual(cut.count, 61)
    }
}
