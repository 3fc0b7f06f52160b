import Live
import LiveSimulator
import NIOWebSocket
import LiveTesting
import XCTest

/// Starts a simulator per test on a free loopback port and stops it afterwards.
class SimulatorTestCase: XCTestCase {
    private var simulators: [LiveSimulator] = []

    func startSimulator(_ options: SimulatorOptions = .init()) async throws -> LiveSimulator {
        let sim = LiveSimulator(options: options)
        try await sim.start()
        simulators.append(sim)
        return sim
    }

    /// A simulator plus a client that has completed setup.
    func connected(
        _ options: SimulatorOptions = .init(), setup: Setup = makeSetup()
    ) async throws -> (LiveSimulator, SimTestClient) {
        let sim = try await startSimulator(options)
        let client = SimTestClient(url: sim.url, apiKey: options.apiKey)
        try await client.setUp(setup)
        return (sim, client)
    }

    override func tearDown() async throws {
        for sim in simulators { try await sim.stop() }
        simulators = []
        try await super.tearDown()
    }

    /// Asserts the connection ends with this close code and reason.
    func assertClosed(
        _ client: SimTestClient, code: Int, reason: String, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let frame = try await client.closeFrame()
        XCTAssertEqual(frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, code, file: file, line: line)
        XCTAssertEqual(frame?.reason ?? "", reason, file: file, line: line)
    }
}
