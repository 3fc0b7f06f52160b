/// Why frames cannot be captured; the conversation goes on without them.
struct VisionUnavailable: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
