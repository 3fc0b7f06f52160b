import Live

@testable import Conversation

extension AppState {
    /// A conversation as parley starts one from an empty config: the default model and voice, AI Studio's list
    /// prices, no budget.
    static func starting() -> AppState {
        let model = LiveModel.defaultID
        return AppState(
            model: model, voice: Voice.defaultName, mode: .ptt,
            usage: UsageState(model: model, backend: .aiStudio, table: .published, slidingWindow: true, budget: nil),
            demo: false, audioAvailable: true, kitty: false)
    }
}
