/// A prebuilt voice of the native-audio Live models.
public struct Voice: Sendable, Equatable, Hashable {
    public let name: String
    /// The one-word style Google gives the voice ("Bright", "Upbeat", …).
    public let style: String

    /// The voice used when none is chosen.
    public static let defaultName = "Puck"

    /// All 30 prebuilt voices, in Google's order.
    public static let all: [Voice] = [
        ("Zephyr", "Bright"), ("Puck", "Upbeat"), ("Charon", "Informative"), ("Kore", "Firm"),
        ("Fenrir", "Excitable"), ("Leda", "Youthful"), ("Orus", "Firm"), ("Aoede", "Breezy"),
        ("Callirrhoe", "Easy-going"), ("Autonoe", "Bright"), ("Enceladus", "Breathy"), ("Iapetus", "Clear"),
        ("Umbriel", "Easy-going"), ("Algieba", "Smooth"), ("Despina", "Smooth"), ("Erinome", "Clear"),
        ("Algenib", "Gravelly"), ("Rasalgethi", "Informative"), ("Laomedeia", "Upbeat"), ("Achernar", "Soft"),
        ("Alnilam", "Firm"), ("Schedar", "Even"), ("Gacrux", "Mature"), ("Pulcherrima", "Forward"),
        ("Achird", "Friendly"), ("Zubenelgenubi", "Casual"), ("Vindemiatrix", "Gentle"), ("Sadachbia", "Lively"),
        ("Sadaltager", "Knowledgeable"), ("Sulafat", "Warm"),
    ].map { Voice(name: $0.0, style: $0.1) }

    /// Finds a voice by name, ignoring case.
    public static func named(_ name: String) -> Voice? {
        all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }
}
