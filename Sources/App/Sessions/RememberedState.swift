import Foundation
import Live

/// What parley remembers between runs that is not configuration: the last voice chosen in the menu.
struct RememberedState: Codable, Equatable {
    var voice: String?

    static func load(_ path: String) -> RememberedState {
        guard let data = FileManager.default.contents(atPath: path),
            let s = try? JSONDecoder().decode(RememberedState.self, from: data)
        else { return RememberedState() }
        return s
    }

    func save(_ path: String) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        Paths.writePrivately(data, to: path)
    }

    /// The start voice: a flag or the config file wins, then the last voice used, then the default.
    static func startVoice(_ config: Config, remembered: RememberedState) -> String {
        if config.voiceChosen { return config.voice }
        if let v = remembered.voice, let voice = Voice.named(v) { return voice.name }
        return config.voice
    }
}
