import Foundation
import Live
import XCTest

/// The model table: what each model takes, refused before connecting, and the setup built from it.
final class LiveModelTests: XCTestCase {
    func setup(_ model: String, tools: [String] = []) -> Setup {
        Setup(
            model: LiveModel.resourceName(model),
            generationConfig: GenerationConfig(speechConfig: SpeechConfig(voiceName: "Puck")),
            tools: tools.isEmpty ? nil : [Tool(functionDeclarations: tools.map { FunctionDeclaration(name: $0) })])
    }

    func testTheDefaultIsGemini38Live() {
        XCTAssertEqual(LiveModel.defaultID, "gemini-3.8-live")
        XCTAssertNotNil(LiveModel.named("models/gemini-3.8-live"))
        XCTAssertEqual(LiveModel.named("gemini-live-2.5-flash-native-audio")?.id, "gemini-2.5-flash-native-audio-preview-12-2025")
        XCTAssertNil(LiveModel.named("gemini-2.0-flash-live-001"))
        XCTAssertTrue(LiveModel.listing.contains("gemini-3.8-live  (default)"))
    }

    func testOptionsAModelDoesNotTakeAreRefusedWithTheOptionAndTheModel() throws {
        let m38 = try XCTUnwrap(LiveModel.named("gemini-3.8-live"))
        XCTAssertThrowsError(try m38.check(ModelOptions(thinkingLevel: "high"))) { e in
            let error = e as? ModelOptionError
            XCTAssertEqual(error?.option, "--thinking")
            XCTAssertEqual(error?.model, "gemini-3.8-live")
            XCTAssertTrue(error?.hint.contains("gemini-3.8-live-extended-thinking") == true, "\(String(describing: error))")
        }
        XCTAssertThrowsError(try m38.check(ModelOptions(proactiveAudio: false))) { e in
            XCTAssertEqual((e as? ModelOptionError)?.option, "proactive_audio = false")
        }
        XCTAssertThrowsError(try m38.check(ModelOptions(affectiveDialog: true)))
        XCTAssertNoThrow(try m38.check(ModelOptions(languageCode: "de-DE", proactiveAudio: true, functionBehaviors: ["f": .blocking])))

        let extended = try XCTUnwrap(LiveModel.named("gemini-3.8-live-extended-thinking"))
        XCTAssertNoThrow(try extended.check(ModelOptions(thinkingLevel: "medium")))
        XCTAssertThrowsError(try extended.check(ModelOptions(thinkingLevel: "extreme"))) { e in
            XCTAssertTrue("\(e)".contains("low, medium, high"), "\(e)")
        }

        let m31 = try XCTUnwrap(LiveModel.named("gemini-3.1-flash-live-preview"))
        XCTAssertThrowsError(try m31.check(ModelOptions(functionBehaviors: ["get_current_time": .nonBlocking]))) { e in
            XCTAssertEqual((e as? ModelOptionError)?.option, "behavior of get_current_time")
        }
        XCTAssertThrowsError(try m31.check(ModelOptions(proactiveAudio: true)))

        let m25 = try XCTUnwrap(LiveModel.named("gemini-2.5-flash-native-audio-preview-12-2025"))
        XCTAssertNoThrow(try m25.check(ModelOptions(thinkingBudget: 512, affectiveDialog: true, proactiveAudio: true)))
        XCTAssertThrowsError(try m25.check(ModelOptions(thinkingLevel: "low")))
    }

    func testTheSetupIsBuiltFromTheTable() throws {
        let options = ModelOptions(
            thinkingLevel: "HIGH", thinkingBudget: 256, languageCode: "fr-FR", affectiveDialog: true, proactiveAudio: true,
            functionBehaviors: ["slow": .nonBlocking])

        var s38 = setup("gemini-3.8-live-extended-thinking", tools: ["slow", "fast"])
        LiveModel.traits(of: s38.model).apply(options, to: &s38)
        XCTAssertEqual(s38.generationConfig?.thinkingConfig, ThinkingConfig(thinkingLevel: "high"))
        XCTAssertNil(s38.generationConfig?.enableAffectiveDialog, "3.8 has no affective dialog: omitted")
        XCTAssertNil(s38.proactivity, "always on: never sent")
        XCTAssertEqual(s38.generationConfig?.speechConfig?.languageCode, "fr-FR")
        XCTAssertEqual(s38.tools?.first?.functionDeclarations?.map(\.behavior), ["NON_BLOCKING", nil])
        XCTAssertEqual(LiveModel.traits(of: s38.model).behavior(of: "fast", in: s38), .nonBlocking, "3.8's default")

        var s31 = setup("gemini-3.1-flash-live-preview", tools: ["slow"])
        s31.tools?[0].functionDeclarations?[0].behavior = "NON_BLOCKING"
        LiveModel.traits(of: s31.model).apply(ModelOptions(), to: &s31)
        XCTAssertEqual(s31.tools?.first?.functionDeclarations?.first?.behavior, nil, "3.1 runs functions synchronously")
        XCTAssertEqual(LiveModel.traits(of: s31.model).behavior(of: "slow", in: s31), .blocking)

        var s25 = setup("gemini-2.5-flash-native-audio-preview-12-2025")
        LiveModel.traits(of: s25.model).apply(options, to: &s25)
        XCTAssertEqual(s25.generationConfig?.thinkingConfig, ThinkingConfig(thinkingBudget: 256))
        XCTAssertEqual(s25.generationConfig?.enableAffectiveDialog, true)
        XCTAssertEqual(s25.proactivity, Proactivity(proactiveAudio: true))
    }
}

/// proto3 JSON: snake_case accepted like camelCase, free-form keys untouched, pretty-printed server frames.
final class ProtoJSONTests: XCTestCase {
    func testTheClientDecoderTakesSnakeCaseAsTheSDKSendsIt() throws {
        let json = """
            {"setup": {"model": "models/gemini-3.8-live", "generation_config": {"response_modalities": ["AUDIO"],
             "speech_config": {"voice_config": {"prebuilt_voice_config": {"voice_name": "Kore"}}, "language_code": "de-DE"}},
             "realtime_input_config": {"automatic_activity_detection": {"disabled": true}},
             "input_audio_transcription": {}, "session_resumption": {},
             "tools": [{"function_declarations": [{"name": "f", "parameters": {"type": "object",
               "properties": {"file_path": {"type": "string"}}}, "behavior": "NON_BLOCKING"}]}]}}
            """
        guard case .setup(let setup) = try LiveCodec().decodeClient(Data(json.utf8)) else { return XCTFail("not a setup") }
        XCTAssertEqual(setup.voiceName, "Kore")
        XCTAssertEqual(setup.generationConfig?.speechConfig?.languageCode, "de-DE")
        XCTAssertFalse(setup.automaticActivityDetection)
        XCTAssertNotNil(setup.inputAudioTranscription)
        XCTAssertEqual(setup.tools?.first?.functionDeclarations?.first?.behavior, "NON_BLOCKING")
        XCTAssertNotNil(setup.tools?.first?.functionDeclarations?.first?.parameters?["properties"]?["file_path"], "schema keys are data")

        let content = #"{"client_content": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turn_complete": true}}"#
        XCTAssertEqual(try LiveCodec().decodeClient(Data(content.utf8)), .clientContent(.userText("hi")))
        let response = #"{"tool_response": {"function_responses": [{"id": "1", "name": "f", "response": {"snake_key": 1}, "will_continue": true, "scheduling": "SILENT"}]}}"#
        guard case .toolResponse(let r) = try LiveCodec().decodeClient(Data(response.utf8)) else { return XCTFail("not a tool response") }
        XCTAssertEqual(r.functionResponses.first?.response["snake_key"], 1)
        XCTAssertEqual(r.functionResponses.first?.willContinue, true)
        XCTAssertEqual(r.functionResponses.first?.scheduling, .silent)
        let audio = #"{"realtime_input": {"audio_stream_end": true}}"#
        XCTAssertEqual(try LiveCodec().decodeClient(Data(audio.utf8)), .realtimeInput(.audioStreamEnd))
    }

    func testTheServerDecoderTakesBothSpellings() throws {
        let json = """
            {"server_content": {"model_turn": {"parts": [{"text": "**Thinking**"}, {"executable_code": {"language": "PYTHON", "code": "print(1)"}}]},
             "interim_input_transcription": {"text": " wh"}, "turn_complete": true, "turn_complete_reason": "NEED_MORE_INPUT",
             "grounding_metadata": {"web_search_queries": ["weather"]}},
             "tool_call": {"function_calls": [{"id": "function-call-1", "name": "f", "args": {"a_b": 1}}]},
             "session_resumption_update": {"new_handle": "Cgx", "resumable": true, "last_consumed_client_message_index": "4"}}
            """
        let m = try LiveCodec().decodeServer(Data(json.utf8))
        XCTAssertEqual(m.serverContent?.modelTurn?.parts.first?.text, "**Thinking**")
        XCTAssertEqual(m.serverContent?.modelTurn?.parts.last?.executableCode, ExecutableCode(language: "PYTHON", code: "print(1)"))
        XCTAssertEqual(m.serverContent?.interimInputTranscription?.text, " wh")
        XCTAssertEqual(m.serverContent?.turnCompleteReason, "NEED_MORE_INPUT")
        XCTAssertEqual(m.serverContent?.groundingMetadata.flatMap { ModelActivity.grounding($0) }, .grounding(queries: ["weather"], sources: []))
        XCTAssertEqual(m.toolCall?.functionCalls.first?.args, ["a_b": 1], "arguments keep their keys")
        XCTAssertEqual(m.sessionResumptionUpdate?.usableHandle?.revealed, "Cgx")
        XCTAssertEqual(m.sessionResumptionUpdate?.lastConsumedClientMessageIndex, 4)
    }

    func testServerFramesArePrettyPrintedLikeTheService() throws {
        let text = try LiveCodec().encode(ServerMessage(serverContent: ServerContent(turnComplete: true), sessionResumptionUpdate: SessionResumptionUpdate()))
        XCTAssertEqual(text, """
            {
              "serverContent": {
                "turnComplete": true
              },
              "sessionResumptionUpdate": {}
            }

            """)
        XCTAssertEqual(ProtoJSON.prettyPrinted(#"{"a":"x, {y}: \"z\"","b":[1,2]}"#), "{\n  \"a\": \"x, {y}: \\\"z\\\"\",\n  \"b\": [\n    1,\n    2\n  ]\n}\n")
        XCTAssertEqual(ProtoJSON.camelCase("voice_config"), "voiceConfig")
        XCTAssertEqual(ProtoJSON.camelCase("turnComplete"), "turnComplete")
    }
}

/// Transcription fragments joined into clean text.
final class TranscriptTextTests: XCTestCase {
    func testFragmentsJoinIntoCleanText() {
        var t = TranscriptText()
        for piece in [" It's", " <noise>", " a", " beau", "tiful", " day", " ,", " isn't", " it", "?"] { t.append(piece) }
        XCTAssertEqual(t.text, "It's a beautiful day, isn't it?")
    }

    func testAnUnclosedTokenIsHeldBackAndALiteralAngleBracketIsKept() {
        var t = TranscriptText(" Where <noi")
        XCTAssertEqual(t.text, "Where")
        t.append("se> are you")
        XCTAssertEqual(t.text, "Where are you")
        XCTAssertEqual(TranscriptText(" 3 < 5 and 6 > 2").text, "3 < 5 and 6 > 2")
    }

    func testStreamingAdditionsNeverRepeatText() {
        var t = TranscriptText()
        var printed = ""
        for piece in [" Hello", " <noise>", " there", "."] {
            t.append(piece)
            printed += t.addition(after: printed)
        }
        XCTAssertEqual(printed, "Hello there.")
    }
}
