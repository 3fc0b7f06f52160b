import AuthTesting
import Foundation
import GoogleAuth
import Live
import LiveSimulator
import ParleyTesting
import ParleyTime
import XCTest

/// Conversations whose credential changes: Vertex AI with access tokens that expire mid-conversation, and
/// ephemeral tokens that a new session uses up, against the simulator checking them as the service does.
final class CredentialSessionTests: LiveSessionTestCase {
    var google: LoopbackGoogle!
    var dir: String!

    override func setUp() async throws {
        google = try LoopbackGoogle()
        try await google.start()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cred-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await google.stop()
        try? FileManager.default.removeItem(atPath: dir)
        try await super.tearDown()
    }

    func vertexSetup() -> Setup {
        var s = setup()
        s.model = LiveBackend.vertex(project: "loopback-project", location: "us-central1").modelResource(LiveModel.vertexDefaultID)
        return s
    }

    func testVertexConversationRefreshesAnExpiringTokenBeforeTheNextConnection() async throws {
        let google = google!
        var options = SimulatorOptions(replyDelay: .milliseconds(20), turnCompleteAfterPlayback: false)
        options.acceptsAccessToken = { google.accepts($0) }
        let base = try await startSimulator(options)
        let url = base.replacingOccurrences(of: LiveSimulator.path, with: LiveBackend.vertexPath)
        let file = "\(dir!)/sa.json"
        try google.serviceAccountJSON().write(toFile: file, atomically: true, encoding: .utf8)
        google.setTokenLifetime(900)
        let clock = ShiftedTime()
        let adc = ApplicationDefaultCredentials(environment: ["GOOGLE_APPLICATION_CREDENTIALS": file, "PATH": dir, "HOME": dir])
        let authorizer = RenewingAuthorizer(.applicationDefault(adc), time: clock.source)
        let s = LiveSession(
            configuration: LiveConfiguration(endpoint: url, credential: .none, authorizer: authorizer, setup: vertexSetup()),
            time: clock.source)
        defer { s.close() }
        s.start()
        let first = await turn(s) { s.sendText("hello") }
        XCTAssertTrue(first.contains { if case .turnComplete = $0 { true } else { false } }, "\(first)")
        XCTAssertEqual(google.issued.count, 1)
        eventually("a resumption handle") { s.hasResumptionHandle }

        // Twelve minutes on: less than 3 min 45 s left, so the next connection gets a new token first.
        clock.jump(12 * 60)
        s.reconfigure { _ in }
        let second = await collect(s) { e, _ in if case .setupComplete(resumed: true) = e { true } else if case .failed = e { true } else { false } }
        XCTAssertTrue(second.contains(.setupComplete(resumed: true)), "\(second)")
        let answered = await turn(s) { s.sendText("still there?") }
        XCTAssertTrue(answered.contains { if case .turnComplete = $0 { true } else { false } }, "\(answered)")
        XCTAssertEqual(google.issued.count, 2, "one refresh")
        let stats = simulator.stats()
        XCTAssertEqual(stats.credentialsRefused, 0)
        XCTAssertEqual(stats.backends, [.vertex, .vertex])
        XCTAssertEqual(stats.setups.map(\.model), Array(repeating: "projects/loopback-project/locations/us-central1/publishers/google/models/gemini-live-2.5-flash-native-audio", count: 2))
    }

    func testAVertexSetupWithoutAValidBearerTokenIsRefused() async throws {
        let google = google!
        var options = SimulatorOptions()
        options.acceptsAccessToken = { google.accepts($0) }
        let base = try await startSimulator(options)
        let url = base.replacingOccurrences(of: LiveSimulator.path, with: LiveBackend.vertexPath)
        let (s, _) = session(url, vertexSetup(), credential: .bearer(Secret("ya29.forged")), reconnects: false)
        defer { s.close() }
        s.start()
        let events = await waitLive(s)
        guard case .failed(let reason)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(reason.kind, .credential)
        XCTAssertEqual(simulator.stats().credentialsRefused, 1)
    }

    /// The scenario of issue 21: a transient close, then a refused handle, then a fresh session that needs a
    /// new single-use token.
    func ephemeralOptions() -> SimulatorOptions {
        var options = SimulatorOptions(replyDelay: .milliseconds(20), turnCompleteAfterPlayback: false)
        options.acceptsEphemeralToken = { $0.hasPrefix("auth_tokens/loopback-") }
        options.faults = SimulatorFaults(closeOnTurn: (answeredTurns: 1, reason: .internalError, times: 1), refuseHandles: .sessionExpired)
        return options
    }

    func testWithATokenCommandAConversationSurvivesARefusedHandle() async throws {
        let url = try await startSimulator(ephemeralOptions())
        let command = try CountingTokenCommand()
        defer { command.remove() }
        let authorizer = RenewingAuthorizer(.tokenCommand(TokenCommand(command: command.script), bearer: false))
        let s = LiveSession(configuration: LiveConfiguration(endpoint: url, credential: .none, authorizer: authorizer, setup: setup()))
        defer { s.close() }
        s.start()
        _ = await turn(s) { s.sendText("first") }
        eventually("a resumption handle") { s.hasResumptionHandle }
        let second = await turn(s) { s.sendText("second") }
        XCTAssertTrue(second.contains { if case .turnComplete = $0 { true } else { false } }, "\(second)")
        XCTAssertFalse(second.contains { if case .failed = $0 { true } else { false } }, "\(second)")
        // One token for the first session, none for the resume, one for the fresh session.
        XCTAssertEqual(command.calls, 2)
        let stats = simulator.stats()
        XCTAssertEqual(stats.ephemeralTokensSpent, 2)
        XCTAssertFalse(stats.closesSent.contains(.tokenSpent))
    }

    func testWithoutATokenCommandASpentTokenStopsAtOnceSayingWhy() async throws {
        let url = try await startSimulator(ephemeralOptions())
        let (s, _) = session(url, setup(), credential: Credential("auth_tokens/loopback-1"))
        defer { s.close() }
        s.start()
        _ = await turn(s) { s.sendText("first") }
        eventually("a resumption handle") { s.hasResumptionHandle }
        let started = Date()
        let events = await turn(s) { s.sendText("second") }
        guard case .failed(let reason)? = events.last else { return XCTFail("\(events)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(reason, .tokenSpent)
        XCTAssertTrue(reason.hint.contains("single use"), reason.hint)
        XCTAssertTrue(reason.hint.contains("token_command"), reason.hint)
        // At most one attempt with the spent token.
        XCTAssertEqual(simulator.stats().closesSent.filter { $0 == .tokenSpent }.count, 1)
    }
}
