/// Modifier keys held with a key.
public struct Modifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = Modifiers(rawValue: 1)
    public static let alt = Modifiers(rawValue: 2)
    public static let control = Modifiers(rawValue: 4)
    public static let superKey = Modifiers(rawValue: 8)

    /// From the xterm/kitty `1 + bits` encoding, ignoring Caps Lock and Num Lock.
    init(encoded: Int) {
        // Terminal input may say anything: CSI 1;-9223372036854775808 A made `encoded - 1` overflow.
        let bits = encoded > 0 ? encoded - 1 : 0
        var m: Modifiers = []
        if bits & 1 != 0 { m.insert(.shift) }
        if bits & 2 != 0 { m.insert(.alt) }
        if bits & 4 != 0 { m.insert(.control) }
        if bits & (8 | 16 | 32) != 0 { m.insert(.superKey) }
        self = m
    }
}
