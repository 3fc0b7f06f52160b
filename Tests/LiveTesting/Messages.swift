import Foundation
import Live

/// A setup as parley sends it.
package func makeSetup(
    model: String = "models/\(LiveModel.defaultID)", voice: String? = "Puck", automatic: Bool = true,
    tools: [String] = [], behavior: String? = "BLOCKING", handle: String? = nil, resumption: Bool = true
) -> Setup {
    Setup(
        model: model,
        generationConfig: GenerationConfig(responseModalities: ["AUDIO"], speechConfig: voice.map { SpeechConfig(voiceName: $0) }),
        tools: tools.isEmpty ? nil : [Tool(functionDeclarations: tools.map { FunctionDeclaration(name: $0, description: "test tool", behavior: behavior) })],
        realtimeInputConfig: RealtimeInputConfig(automaticActivityDetection: AutomaticActivityDetection(disabled: !automatic)),
        inputAudioTranscription: EmptyObject(), outputAudioTranscription: EmptyObject(),
        sessionResumption: resumption ? SessionResumptionConfig(handle: handle.map(Secret.init)) : nil)
}

extension ServerMessage {
    package var audio: Data {
        (serverContent?.modelTurn?.parts ?? []).compactMap(\.inlineData).reduce(into: Data()) { $0.append($1.data) }
    }
    package var isTurnComplete: Bool { serverContent?.turnComplete == true }
}

extension [ServerMessage] {
    package var inputTranscript: String { compactMap { $0.serverContent?.inputTranscription?.text }.joined() }
    package var outputTranscript: String { compactMap { $0.serverContent?.outputTranscription?.text }.joined() }
    package var audio: Data { reduce(into: Data()) { $0.append($1.audio) } }
}
