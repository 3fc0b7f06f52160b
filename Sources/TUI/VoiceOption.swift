/// A voice the menu offers: its name and style (the App passes the list; TUI ships none).
public struct VoiceOption: Sendable, Equatable {
    public var name: String
    public var style: String
    public init(name: String, style: String) { self.name = name; self.style = style }
}
