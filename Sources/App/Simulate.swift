import ArgumentParser

struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Live simulator as a standalone server on loopback.")
    func run() async throws {}
}
