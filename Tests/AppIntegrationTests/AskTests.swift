import Foundation
import Live
import LiveSimulator
import ParleyTesting
import XCTest

/// `parley ask` against the simulator: it reconnects, finishes its turn, and exits with the documented code.
final class AskTests: XCTestCase {
    var home: String!
    var simulator: LiveSimulator?

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ask-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? await simulator?.stop()
        try? FileManager.default.removeItem(atPath: home)
    }

    func ask(_ args: [String], timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
        let env = isolatedEnvironment(home: home!, ["GEMINI_API_KEY": "test-key"])
        return try shell([Binaries.parley, "ask"] + args, env: env, timeout: timeout)
    }

    func start(_ faults: SimulatorFaults) async throws -> String {
        var o = SimulatorOptions()
        o.resumptionUpdateAfterSetup = true
        o.turnCompleteAfterPlayback = false
        o.faults = faults
        let sim = LiveSimulator(options: o)
        try await sim.start()
        simulator = sim
        return sim.url
    }

    func testAskReconnectsMidTurnAndExits0() async throws {
        let url = try await start(SimulatorFaults(closeOnTurn: (0, .internalError, 1)))
        let r = try ask(["--endpoint", url, "what is the capital of France"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("capital of France"), r.out)
        XCTAssertTrue(r.err.contains("code 1011 \"Internal error encountered.\""), r.err)
        XCTAssertTrue(r.err.contains("asked again"), r.err)
        XCTAssertEqual(simulator?.stats().replies.count, 1, "answered once")
    }

    func testAskRefusedForGoodExits69WithCodeReasonAndWhatToDo() async throws {
        let url = try await start(SimulatorFaults(closeOnTurn: (0, .quotaExceeded, 1)))
        let r = try ask(["--endpoint", url, "hello"])
        XCTAssertEqual(r.status, 69, r.err)
        XCTAssertTrue(r.err.contains("code 1011 \"You exceeded your current quota"), r.err)
        XCTAssertTrue(r.err.contains("will not retry"), r.err)
        XCTAssertFalse(r.err.contains("retrying"), r.err)
    }

    func testAskWaitsThroughAnOutageUpToItsTimeoutThenExits75() throws {
        let r = try ask(["--endpoint", "ws://127.0.0.1:1/ws", "--timeout", "3", "hello"])
        XCTAssertEqual(r.status, 75, r.err)
        XCTAssertTrue(r.err.contains("retrying"), "it kept trying and said so: \(r.err)")
        XCTAssertTrue(r.err.contains("gave up after 3 s"), r.err)
    }

    func testAskHelpDocumentsTheExitCodes() throws {
        let r = try shell([Binaries.parley, "ask", "--help"])
        for code in ["64", "69", "75", "78"] { XCTAssertTrue(r.out.contains(code), "\(code) in: \(r.out)") }
    }
}
