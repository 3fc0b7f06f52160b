import Foundation
import Live
import PulseAudio
import XCTest

@testable import App

final class ConfigTests: XCTestCase {
    func parse(_ toml: String) throws -> Config {
        var c = Config()
        try c.apply(toml: toml, file: "/tmp/config.toml")
        return c
    }

    func testReadsEverySetting() throws {
        let c = try parse("""
            model = "gemini-3.1-flash-live-preview"
            voice = "kore"
            system = "Be brief."
            mode = "open"
            theme = "light"
            playback_buffer_ms = 120
            api_key = "AIzaSECRET"

            [vad]
            start_sensitivity = "low"
            silence_duration_ms = 700

            [keys]
            voice_menu = "V"
            """)
        XCTAssertEqual(c.model, "gemini-3.1-flash-live-preview")
        XCTAssertEqual(c.voice, "Kore")
        XCTAssertEqual(c.mode, .open)
        XCTAssertEqual(c.playbackBufferMs, 120)
        XCTAssertEqual(c.startSensitivity, "START_SENSITIVITY_LOW")
        XCTAssertEqual(c.silenceDurationMs, 700)
        XCTAssertEqual(c.keys["voice_menu"], "V")
        XCTAssertFalse(c.printed.contains("SECRET"), "secrets redacted")
        XCTAssertTrue(c.printed.contains("api_key = \"‹redacted›\""))
    }

    func testErrorsNameFileLineAndKey() {
        XCTAssertThrowsError(try parse("voice = \"Kore\"\nmode = 3\n")) { e in
            XCTAssertEqual("\(e)", "/tmp/config.toml:2: mode: must be a string in quotes")
        }
        XCTAssertThrowsError(try parse("[vad]\nsilence_duration_ms = \"long\"\n")) { e in
            XCTAssertEqual("\(e)", "/tmp/config.toml:2: vad.silence_duration_ms: must be a whole number")
        }
        XCTAssertThrowsError(try parse("voice = \"Nobody\"\n")) { e in
            XCTAssertTrue("\(e)".hasPrefix("/tmp/config.toml:1: voice: no voice named Nobody"), "\(e)")
        }
        XCTAssertThrowsError(try parse("colour = 1\n")) { e in
            XCTAssertTrue("\(e)".contains("colour: unknown setting"), "\(e)")
        }
        XCTAssertThrowsError(try parse("model = \n")) { e in
            XCTAssertTrue("\(e)".hasPrefix("/tmp/config.toml:1:"), "\(e)")
        }
    }

    func testSetupFollowsTheMode() {
        var c = Config()
        c.voice = "Kore"
        let ptt = c.setup(tools: [], manualActivity: true)
        XCTAssertEqual(ptt.voiceName, "Kore")
        XCTAssertFalse(ptt.automaticActivityDetection)
        XCTAssertNotNil(ptt.inputAudioTranscription)
        XCTAssertNotNil(ptt.outputAudioTranscription)
        XCTAssertEqual(ptt.model, "models/\(LiveModel.defaultID)")
        c.silenceDurationMs = 800
        let open = c.setup(tools: [], manualActivity: false)
        XCTAssertTrue(open.automaticActivityDetection)
        XCTAssertEqual(open.realtimeInputConfig?.automaticActivityDetection?.silenceDurationMs, 800)
    }

    func testCredentialComesFromTheEnvironmentFirst() throws {
        var c = Config()
        XCTAssertThrowsError(try c.credential(environment: [:])) { e in
            XCTAssertTrue("\(e)".contains("GEMINI_API_KEY"))
            XCTAssertTrue("\(e)".contains("parley --demo"))
        }
        XCTAssertEqual(try c.credential(environment: ["GOOGLE_API_KEY": "g"]), .apiKey(Secret("g")))
        XCTAssertEqual(try c.credential(environment: ["GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "g"]), .apiKey(Secret("a")))
        c.endpoint = "ws://127.0.0.1:9000"
        XCTAssertEqual(try c.credential(environment: [:]), Credential.none)
    }

    func testTranscriptStoreWritesJSONLinesAndExportsMarkdown() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try TranscriptStore(directory: dir)
        store.append(.session(model: "m", voice: "Puck"))
        store.append(.line(speaker: .user, text: "hi", interrupted: false))
        store.append(.line(speaker: .model, text: "hello", interrupted: true))
        store.append(.tool(id: "1", name: "get_current_time", arguments: "{}", state: .ok, result: "noon", duration: 0.01))
        let records = try TranscriptStore.read(store.path)
        XCTAssertEqual(records.map(\.kind), [.session, .user, .model, .tool])
        XCTAssertNotNil(records[1].time)
        let attrs = try FileManager.default.attributesOfItem(atPath: store.path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let md = TranscriptStore.markdown(records, title: "t")
        XCTAssertTrue(md.contains("**You:** hi"))
        XCTAssertTrue(md.contains("**Gemini:** hello _(interrupted)_"))
        XCTAssertTrue(md.contains("get_current_time"))
    }

    func testResumeStoreKeepsTheHandlePrivateAndHonoursItsAge() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = ResumeStore(path: dir + "/resume.json")
        let transcript = dir + "/session-2026-11-24-0500.jsonl"
        if case .success = store.handle(for: transcript, model: "m") { XCTFail("nothing saved yet") }
        store.save(.init(handle: Secret("HANDLE"), savedAt: Date().timeIntervalSince1970 - 60, model: "m", voice: "Puck", transcript: transcript))
        let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/resume.json")
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        guard case .success(let (saved, age)) = store.handle(for: transcript, model: "m") else { return XCTFail() }
        XCTAssertEqual(saved.handle.revealed, "HANDLE")
        XCTAssertEqual(age, 60, accuracy: 5)
        guard case .failure(let model) = store.handle(for: transcript, model: "other") else { return XCTFail("a resumed session cannot change the model") }
        XCTAssertTrue(model.description.contains("cannot change the model"), model.description)
        guard case .failure(let old) = store.handle(for: transcript, model: "m", now: Date().timeIntervalSince1970 + 3 * 3600) else { return XCTFail("too old") }
        XCTAssertEqual(old.description, "its resumption handle is 3 h old and Gemini keeps one for 2 hours")
        guard case .failure(let other) = store.handle(for: dir + "/session-2026-11-20-0900.jsonl", model: "m") else {
            return XCTFail("the handle belongs to the latest conversation only")
        }
        XCTAssertTrue(other.description.contains("only the latest"), other.description)
    }
}

final class RememberedStateTests: XCTestCase {
    func testTheLastVoiceIsTheStartVoiceUnlessOneIsChosen() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID())/state.json").path
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var config = Config()
        XCTAssertEqual(RememberedState.startVoice(config, remembered: .load(path)), "Puck")
        RememberedState(voice: "Kore").save(path)
        XCTAssertEqual(RememberedState.startVoice(config, remembered: .load(path)), "Kore")
        try config.apply(toml: "voice = \"Charon\"\n", file: "c.toml")
        XCTAssertEqual(RememberedState.startVoice(config, remembered: .load(path)), "Charon", "the config file wins")
    }
}

final class EchoCancelConfigTests: XCTestCase {
    func testEchoCancelTakesModesAndTheOldBooleans() throws {
        func parse(_ toml: String) throws -> Config {
            var c = Config()
            try c.apply(toml: toml, file: "/tmp/config.toml")
            return c
        }
        XCTAssertEqual(try parse("").echoCancel, .auto, "on by default (in open mic)")
        XCTAssertEqual(try parse("echo_cancel = \"webrtc\"").echoCancel, .webrtc)
        XCTAssertEqual(try parse("echo_cancel = \"gate\"").echoCancel, .gate)
        XCTAssertEqual(try parse("echo_cancel = true").echoCancel, .pulse, "true loaded PulseAudio's module")
        XCTAssertEqual(try parse("echo_cancel = false").echoCancel, .gate, "false left the half-duplex gate")
        XCTAssertThrowsError(try parse("echo_cancel = \"loud\"")) { e in
            XCTAssertTrue("\(e)".contains("auto, webrtc, pulse, gate or off"), "\(e)")
        }
        XCTAssertTrue(try parse("echo_cancel = \"off\"").printed.contains("echo_cancel = \"off\""))
    }
}
