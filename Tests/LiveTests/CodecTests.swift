import Foundation
import XCTest

@testable import Live

final class CodecTests: XCTestCase {
    let codec = LiveCodec()

    func keys(_ text: String) throws -> [String] {
        let obj = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return (obj?.keys.sorted()) ?? []
    }

    // Golden frames: the exact bytes the client sends.

    func testGoldenSetup() throws {
        let setup = Setup(
            model: "models/gemini-2.5-flash-native-audio-preview-12-2025",
            generationConfig: GenerationConfig(speechConfig: SpeechConfig(voiceName: "Kore")),
            systemInstruction: Content(text: "Be brief."),
            tools: [Tool(functionDeclarations: [FunctionDeclaration(name: "get_current_time", description: "Now", parameters: ["type": "object"])])],
            realtimeInputConfig: RealtimeInputConfig(automaticActivityDetection: AutomaticActivityDetection(disabled: true)),
            inputAudioTranscription: EmptyObject(), outputAudioTranscription: EmptyObject(),
            sessionResumption: SessionResumptionConfig(handle: Secret("h-1"))
        )
        XCTAssertEqual(
            try codec.encode(.setup(setup)),
            #"{"setup":{"generationConfig":{"responseModalities":["AUDIO"],"speechConfig":{"voiceConfig":{"prebuiltVoiceConfig":{"voiceName":"Kore"}}}},"inputAudioTranscription":{},"model":"models/gemini-2.5-flash-native-audio-preview-12-2025","outputAudioTranscription":{},"realtimeInputConfig":{"automaticActivityDetection":{"disabled":true}},"sessionResumption":{"handle":"h-1"},"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[{"description":"Now","name":"get_current_time","parameters":{"type":"object"}}]}]}}"#
        )
    }

    func testGoldenRealtimeInputs() throws {
        XCTAssertEqual(
            try codec.encode(.realtimeInput(.micAudio(Data([0, 1, 2, 0xFF])))),
            #"{"realtimeInput":{"audio":{"data":"AAEC/w==","mimeType":"audio/pcm;rate=16000"}}}"#)
        XCTAssertEqual(try codec.encode(.realtimeInput(.activityStart)), #"{"realtimeInput":{"activityStart":{}}}"#)
        XCTAssertEqual(try codec.encode(.realtimeInput(.activityEnd)), #"{"realtimeInput":{"activityEnd":{}}}"#)
        XCTAssertEqual(try codec.encode(.realtimeInput(.audioStreamEnd)), #"{"realtimeInput":{"audioStreamEnd":true}}"#)
        XCTAssertEqual(try codec.encode(.realtimeInput(.text("hi"))), #"{"realtimeInput":{"text":"hi"}}"#)
    }

    func testGoldenClientContentAndToolResponse() throws {
        XCTAssertEqual(
            try codec.encode(.clientContent(.userText("What's up?"))),
            #"{"clientContent":{"turnComplete":true,"turns":[{"parts":[{"text":"What's up?"}],"role":"user"}]}}"#)
        XCTAssertEqual(
            try codec.encode(.toolResponse(ToolResponse(functionResponses: [FunctionResponse(id: "c1", name: "get_current_time", response: ["time": "12:00"])]))),
            #"{"toolResponse":{"functionResponses":[{"id":"c1","name":"get_current_time","response":{"time":"12:00"}}]}}"#)
    }

    func testEveryFrameHasOneTopLevelKeyAndNeverMediaChunks() throws {
        let messages: [ClientMessage] = [
            .setup(Setup(model: "models/x")), .realtimeInput(.micAudio(Data(count: 640))),
            .realtimeInput(.video(Blob(mimeType: "image/jpeg", data: Data([1])))), .realtimeInput(.activityStart),
            .clientContent(.userText("a")), .toolResponse(ToolResponse(functionResponses: [])),
        ]
        for m in messages {
            let text = try codec.encode(m)
            XCTAssertEqual(try keys(text).count, 1, text)
            XCTAssertFalse(text.contains("mediaChunks"))
            // And the simulator's decoder reads back what was sent.
            XCTAssertEqual(try codec.decodeClient(Data(text.utf8)), m)
        }
    }

    func testClientDecoderRejectsMediaChunksAndSeveralKeys() {
        XCTAssertThrowsError(try codec.decodeClient(Data(#"{"realtimeInput":{"mediaChunks":[]}}"#.utf8)))
        XCTAssertThrowsError(try codec.decodeClient(Data(#"{"setup":{"model":"models/x"},"clientContent":{}}"#.utf8)))
        XCTAssertThrowsError(try codec.decodeClient(Data(#"{"realtimeInput":{"audioStreamEnd":true,"text":"x"}}"#.utf8)))
    }

    func testServerMessageWithSeveralKeysAndUnknownFields() throws {
        let json = #"""
            {"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAEC_w"}},{"text":"hi"}]},
             "outputTranscription":{"text":"hi"},"turnComplete":true,"brandNew":{"x":1}},
             "usageMetadata":{"promptTokenCount":3,"totalTokenCount":9,"responseTokensDetails":[{"modality":"AUDIO","tokenCount":6}]},
             "someFutureMessage":{"a":[1,2]}}
            """#
        let m = try codec.decodeServer(Data(json.utf8))
        XCTAssertEqual(m.serverContent?.modelTurn?.parts.first?.inlineData?.data, Data([0, 1, 2, 0xFF]), "URL-safe base64 without padding")
        XCTAssertEqual(m.serverContent?.modelTurn?.parts.last?.text, "hi")
        XCTAssertEqual(m.serverContent?.turnComplete, true)
        XCTAssertEqual(m.usageMetadata?.totalTokenCount, 9)
        XCTAssertEqual(m.usageMetadata?.responseTokensDetails?.first?.tokenCount, 6)
    }

    func testUnknownMessageKindIsIgnored() throws {
        let m = try codec.decodeServer(Data(#"{"somethingNew":{"x":true}}"#.utf8))
        XCTAssertEqual(m, ServerMessage())
    }

    func testResumptionUpdateIndexIsAString() throws {
        let m = try codec.decodeServer(Data(#"{"sessionResumptionUpdate":{"newHandle":"abc","resumable":true,"lastConsumedClientMessageIndex":"12345678901"}}"#.utf8))
        XCTAssertEqual(m.sessionResumptionUpdate?.lastConsumedClientMessageIndex, 12_345_678_901)
        XCTAssertEqual(m.sessionResumptionUpdate?.usableHandle?.revealed, "abc")
        let notResumable = try codec.decodeServer(Data(#"{"sessionResumptionUpdate":{"newHandle":"","resumable":false}}"#.utf8))
        XCTAssertNil(notResumable.sessionResumptionUpdate?.usableHandle)
        // And the simulator encodes it as a string again.
        let text = try codec.encode(ServerMessage(sessionResumptionUpdate: .init(newHandle: Secret("h"), resumable: true, lastConsumedClientMessageIndex: 7)))
        XCTAssertTrue(text.contains(#""lastConsumedClientMessageIndex": "7""#), text)
    }

    func testGoAwayDuration() throws {
        let m = try codec.decodeServer(Data(#"{"goAway":{"timeLeft":"0.5s"}}"#.utf8))
        XCTAssertEqual(m.goAway?.timeLeftDuration, .milliseconds(500))
        XCTAssertEqual(ProtobufDuration.parse("50s"), .seconds(50))
        XCTAssertNil(ProtobufDuration.parse("soon"))
        XCTAssertEqual(ProtobufDuration.format(.milliseconds(1500)), "1.5s")
        XCTAssertEqual(ProtobufDuration.format(.seconds(50)), "50s")
    }

    func testMalformedServerFrameIsATypedError() {
        XCTAssertThrowsError(try codec.decodeServer(Data(#"{"serverContent":{"modelTurn":7"#.utf8))) { error in
            guard case LiveProtocolError.malformedServerMessage = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try codec.decodeServer(Data(#"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"***"}}]}}}"#.utf8)))
    }

    func testSecretsAreRedacted() {
        let key = Secret("AIzaSECRETSECRET")
        XCTAssertFalse("\(key)".contains("SECRET"))
        XCTAssertFalse(String(reflecting: key).contains("SECRET"))
        XCTAssertFalse("\(Credential("AIzaSECRETSECRET"))".contains("SECRET"))
        let setup = Setup(model: "models/x", sessionResumption: SessionResumptionConfig(handle: Secret("HANDLESECRET")))
        XCTAssertFalse("\(setup)".contains("HANDLESECRET"))
        XCTAssertFalse(String(reflecting: setup).contains("HANDLESECRET"))
    }

    func testCredentialsPickHeaderAndEndpoint() {
        let key = Credential("AIzaKey")
        XCTAssertEqual(key.headers.first?.name, "x-goog-api-key")
        XCTAssertTrue(key.defaultEndpoint.hasSuffix("v1beta.GenerativeService.BidiGenerateContent"))
        XCTAssertFalse(key.defaultEndpoint.contains("AIza"))
        let token = Credential("auth_tokens/abc")
        XCTAssertEqual(token.headers.first?.name, "Authorization")
        XCTAssertEqual(token.headers.first?.value, "Token auth_tokens/abc")
        XCTAssertTrue(token.defaultEndpoint.contains("v1alpha.GenerativeService.BidiGenerateContentConstrained"))
    }

    func testCloseReasonHints() {
        let badKey = CloseReason(code: 1007, reason: "API key not valid. Please pass a valid API key.")
        XCTAssertTrue(badKey.isFatal)
        XCTAssertTrue(badKey.hint.contains("GEMINI_API_KEY"))
        XCTAssertTrue(badKey.description.contains("1007"))
        XCTAssertTrue(badKey.description.contains("API key not valid"))
        XCTAssertTrue(CloseReason(code: 1008, reason: "models/x is not found").isFatal)
        XCTAssertFalse(CloseReason(code: 1011, reason: "Internal error occurred.").isFatal)
        XCTAssertTrue(CloseReason(code: 1011, reason: "You exceeded your current quota").hint.contains("quota"))
        XCTAssertFalse(CloseReason.dropped().isFatal)
    }

    func testVoices() {
        XCTAssertEqual(Voice.all.count, 30)
        XCTAssertEqual(Set(Voice.all.map(\.name)).count, 30)
        XCTAssertEqual(Voice.named("kore")?.style, "Firm")
    }
}
