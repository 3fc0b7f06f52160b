/// A piece of text with a role.
public struct StyledRun: Sendable, Hashable {
    public var text: String
    public var role: Role
    public init(_ text: String, _ role: Role = .normal) { self.text = text; self.role = role }
}
