/// Key bindings for the main screen: data, so configuration can override them.
public struct KeyMap: Sendable, Equatable {
    /// One key bound to one command.
    public struct Binding: Sendable, Equatable {
        public var chord: KeyChord
        public var command: Command
        public init(_ chord: KeyChord, _ command: Command) { self.chord = chord; self.command = command }
    }

    public var bindings: [Binding]
    public init(bindings: [Binding]) { self.bindings = bindings }

    /// The documented defaults.
    public static let `default` = KeyMap(bindings: [
        .init(KeyChord(.character(" ")), .pushToTalk),
        .init(KeyChord(.character("v")), .voiceMenu),
        .init(KeyChord(.character("m")), .toggleMicMode),
        .init(KeyChord(.tab), .textInput),
        .init(KeyChord(.character("i")), .textInput),
        .init(KeyChord(.character("t")), .toolLogFocus),
        .init(KeyChord(.character("?")), .help),
        .init(KeyChord(.character("L")), .latencyStats),
        .init(KeyChord(.character("$")), .usageStats),
        .init(KeyChord(.character("q")), .quit),
        .init(KeyChord(.character("c"), .control), .interruptOrQuit),
        .init(KeyChord(.pageUp), .scrollPageUp),
        .init(KeyChord(.pageDown), .scrollPageDown),
        .init(KeyChord(.home), .scrollTop),
        .init(KeyChord(.end), .scrollBottom),
        .init(KeyChord(.up), .scrollLineUp),
        .init(KeyChord(.down), .scrollLineDown),
        .init(KeyChord(.character("e")), .export),
        .init(KeyChord(.character("T")), .toggleThoughts),
        .init(KeyChord(.character("r")), .retryNow),
        .init(KeyChord(.character("c")), .toggleSharing),
        .init(KeyChord(.character("o"), .control), .attachImage),
        .init(KeyChord(.character("/")), .search),
        .init(KeyChord(.character("n")), .searchOlder),
        .init(KeyChord(.character("N")), .searchNewer),
        .init(KeyChord(.character("R")), .toggleRecording),
    ])

    /// The command bound to a key event, if any (releases and repeats of keys other than Space map to nothing;
    /// Space's are for the push-to-talk machine).
    public func command(for e: KeyEvent) -> Command? {
        if e.kind == .release { return nil }
        return bindings.first { $0.chord.matches(e) }?.command
    }

    /// The keys bound to a command, for help and hints.
    public func keys(for c: Command) -> [KeyChord] { bindings.filter { $0.command == c }.map(\.chord) }

    /// Replaces the keys of the given commands, e.g. `["voiceMenu": ["V"], "quit": ["q", "C-q"]]`.
    public func overriding(_ overrides: [String: [String]]) -> Result<KeyMap, KeyMapError> {
        var map = self
        for (name, keys) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let cmd = Command(rawValue: name) else { return .failure(.unknownCommand(name)) }
            var chords: [KeyChord] = []
            for k in keys {
                guard let ch = KeyChord(parsing: k) else { return .failure(.badKey(command: name, key: k)) }
                chords.append(ch)
            }
            map.bindings.removeAll { $0.command == cmd || chords.contains($0.chord) }
            map.bindings += chords.map { Binding($0, cmd) }
        }
        return .success(map)
    }
}
