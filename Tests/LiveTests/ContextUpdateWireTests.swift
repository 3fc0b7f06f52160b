import Foundation
import XCTest

@testable import Live

/// `contextUpdate` on the wire (the official SDKs' shape) and the model table's column for it.
final class ContextUpdateWireTests: XCTestCase {
    let codec = LiveCodec()
    let clock = Tool(functionDeclarations: [FunctionDeclaration(name: "get_current_time", description: "Now")])

    func testGoldenContextUpdates() throws {
        XCTAssertEqual(
            try codec.encode(.contextUpdate(ContextUpdate(systemInstruction: Content(text: "Be brief."), tools: [clock]))),
            #"{"contextUpdate":{"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":{"tools":[{"functionDeclarations":[{"description":"Now","name":"get_current_time"}]}]}}}"#)
        XCTAssertEqual(
            try codec.encode(.contextUpdate(ContextUpdate(systemInstruction: Content(text: "Be brief.")))),
            #"{"contextUpdate":{"systemInstruction":{"parts":[{"text":"Be brief."}]}}}"#)
        XCTAssertEqual(try codec.encode(.contextUpdate(ContextUpdate(tools: []))), #"{"contextUpdate":{"tools":{"tools":[]}}}"#,
                       "no tools at all: the wrapper with an empty list")
    }

    func testTheToolsWrapperIsReadBackAndABareListIsRefused() throws {
        let update = ContextUpdate(systemInstruction: Content(text: "x"), tools: [clock])
        XCTAssertEqual(try codec.decodeClient(Data(codec.encode(.contextUpdate(update)).utf8)), .contextUpdate(update))
        XCTAssertEqual(try codec.decodeClient(Data(#"{"contextUpdate":{"tools":{}}}"#.utf8)), .contextUpdate(ContextUpdate(tools: [])),
                       "a wrapper without a list is an empty list, as in protobuf")
        XCTAssertThrowsError(try codec.decodeClient(Data(#"{"contextUpdate":{"tools":[{"googleSearch":{}}]}}"#.utf8)))
    }

    func testTheUpdateBetweenTwoSetupsCarriesOnlyWhatDiffers() {
        let old = Setup(model: "models/m", systemInstruction: Content(text: "a"), tools: [clock])
        var new = old
        new.tools = nil
        XCTAssertEqual(ContextUpdate(from: old, to: new), ContextUpdate(tools: []))
        new = old
        new.systemInstruction = nil
        XCTAssertEqual(ContextUpdate(from: old, to: new), ContextUpdate(systemInstruction: Content(text: "")))
        XCTAssertTrue(ContextUpdate(from: old, to: old).isEmpty)
    }

    func testTheModelTableSaysWhichModelsTakeContextUpdate() {
        XCTAssertEqual(LiveModel.contextUpdate(of: "gemini-3.8-live", on: .geminiAPI), .yes)
        XCTAssertEqual(LiveModel.contextUpdate(of: "models/gemini-3.8-live", on: .vertex), .unconfirmed)
        XCTAssertEqual(LiveModel.contextUpdate(of: "gemini-3.8-live-extended-thinking", on: .geminiAPI), .unconfirmed)
        XCTAssertEqual(LiveModel.contextUpdate(of: "gemini-3.1-flash-live-preview", on: .geminiAPI), .no)
        XCTAssertEqual(LiveModel.contextUpdate(of: "gemini-2.5-flash-native-audio-preview-12-2025", on: .geminiAPI), .no)
        XCTAssertEqual(LiveModel.contextUpdate(of: "gemini-9-live", on: .geminiAPI), .unconfirmed, "a model parley does not know")
        XCTAssertTrue(LiveModel.takesContextUpdate(Setup(model: "models/gemini-3.8-live")))
        XCTAssertFalse(LiveModel.takesContextUpdate(Setup(model: "publishers/google/models/gemini-3.8-live")))
        XCTAssertFalse(LiveModel.takesContextUpdate(Setup(model: "models/gemini-3.1-flash-live-preview")))
        for m in LiveModel.all {
            XCTAssertNotNil(LiveModel.contextUpdateSupport[m.id], "\(m.id) has a contextUpdate row")
        }
        XCTAssertTrue(LiveModel.listing.contains("contextUpdate: Gemini API yes · Vertex AI not confirmed"), LiveModel.listing)
    }

    func testAChangeAppliedToASetup() {
        let setup = Setup(
            model: "models/m", generationConfig: GenerationConfig(speechConfig: SpeechConfig(voiceName: "Puck", languageCode: "de-DE")),
            systemInstruction: Content(text: "a"), tools: [clock])
        let next = ContextChange(instruction: "", tools: [], voice: "Kore").applied(to: setup)
        XCTAssertNil(next.systemInstruction)
        XCTAssertNil(next.tools)
        XCTAssertEqual(next.voiceName, "Kore")
        XCTAssertEqual(next.generationConfig?.speechConfig?.languageCode, "de-DE", "the language stays")
        XCTAssertEqual(ContextChange().applied(to: setup), setup)
    }
}
