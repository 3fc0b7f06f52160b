import NIOCore

/// The WebSocket needs one event loop, not one per core: each idle loop is a thread that wakes for nothing.
enum NetworkThreads {
    /// Call before anything touches NIO's shared event loop group (the first line of a command's `run`).
    static func useOne() {
        NIOSingletons.groupLoopCountSuggestion = 1
    }
}
