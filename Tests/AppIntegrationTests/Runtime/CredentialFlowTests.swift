import AuthTesting
import Foundation
import GoogleAuth
import Live
import LiveSimulator
import Logging
import ParleyTesting
import ParleyTime
import TUI
import XCTest

@testable import App

/// A whole conversation for each way parley gets a credential that changes: gcloud's user credentials (a refresh
/// token), the metadata server, `gcloud auth print-access-token`, and a token command minting ephemeral tokens.
/// The real runtime in-process (`RuntimeHarness`) with the access resolved as `parley` resolves it, against the
/// simulator checking each token as the service does and the loopback token endpoint and metadata server. Each
/// goes through a new connection that needs the credential read or minted again, and checks that no secret
/// (access token, refresh token, client secret, ephemeral token) reaches the log, the screen, the transcript or
/// an error's text. (The service-account key has its own in `CredentialSessionTests`.)
final class CredentialFlowTests: XCTestCase {
    var google: LoopbackGoogle!
    var dir: String!
    var logFile: String { dir + "/parley.log" }

    override func setUp() async throws {
        google = try LoopbackGoogle()
        try await google.start()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-credflow-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/gcloud", withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await google.stop()
        // A failed flow's story is in the runtime's log (secrets never reach it): its end goes with the failure.
        if (testRun?.failureCount ?? 0) > 0 {
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(no log)"
            print("the runtime's log, last 40 lines:\n" + log.split(separator: "\n").suffix(40).joined(separator: "\n"))
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// No credentials anywhere but what a test adds: no gcloud on PATH, no ADC file, no metadata server.
    func isolated(_ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": dir, "PATH": dir, "CLOUDSDK_CONFIG": dir + "/gcloud", "GCE_METADATA_HOST": "127.0.0.1:1"].merging(extra) { $1 }
    }

    /// Everything the runtime logs, at every level, goes to `logFile`.
    var logger: Logger {
        get throws {
            let sink = try FileLogHandler.Sink(path: logFile)
            var handler = FileLogHandler(label: "parley.credential-flow", sink: sink)
            handler.logLevel = .trace
            return Logger(label: "parley.credential-flow", factory: { _ in handler })
        }
    }

    /// The app on Vertex AI as `parley --vertex` resolves it from `environment`, against the simulator's Vertex
    /// path, which takes only the tokens `accepts` takes.
    func vertexHarness(
        environment: [String: String], model: String = LiveModel.vertexDefaultID, accepts: @escaping @Sendable (String) -> Bool
    ) async throws -> RuntimeHarness {
        var options = SimulatorOptions.quick
        options.acceptsAccessToken = accepts
        return try await RuntimeHarness(simulator: options, transcripts: true, logger: try logger, access: AccessResolver { config, time in
            var config = config
            config.endpoint = Self.base(of: config.endpoint)  // a base URL: the Vertex path is added
            return try await LiveAccess.prepared(config, environment: environment, time: time)
        }) { c in
            c.vertex.enabled = true
            c.vertex.location = "us-central1"
            c.model = model
        }
    }

    static func base(of url: String?) -> String? {
        guard let url, let u = URLComponents(string: url), let scheme = u.scheme, let host = u.host, let port = u.port else { return url }
        return "\(scheme)://\(host):\(port)"
    }

    /// A typed turn, answered on screen.
    func converse(_ h: RuntimeHarness, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let answered = h.simulator.stats().userTurns.count
        h.typeTurn(text)
        h.wait("the turn \"\(text)\" answered", file: file, line: line) {
            h.simulator.stats().userTurns.count > answered && h.screen.contains(text)
        }
        h.wait("the reply to be complete", file: file, line: line) { h.simulator.stats().turnsAnswered > answered }
        // The whole reply on screen: the app has it all before the next turn is typed.
        let reply = String(h.simulator.stats().replies.last?.suffix(24) ?? "")
        h.wait("the whole reply on screen", file: file, line: line) { Self.transcript(h).contains(reply) }
    }

    /// The transcript pane's text, its wrapped lines joined.
    static func transcript(_ h: RuntimeHarness) -> String {
        h.screen.split(separator: "\n").map { $0.split(separator: "│").first.map(String.init) ?? "" }
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The voice menu's next voice: the conversation resumes on a new connection, which asks for a credential.
    func switchVoice(_ h: RuntimeHarness, file: StaticString = #filePath, line: UInt = #line) {
        let setups = h.simulator.stats().setups.count
        h.press(.char("v"))
        h.wait("the voice menu", file: file, line: line) { h.screen.contains("Voice") || h.screen.contains("voice") }
        h.press(KeyEvent(.down), KeyEvent(.enter))
        h.wait("a new connection", file: file, line: line) { h.simulator.stats().setups.count > setups }
        h.wait("the header to say live", file: file, line: line) { h.header.contains(" live") }
    }

    /// Waits for `condition`, pressing the header's "r: now" while parley is offline so the test does not wait
    /// out the backoff's timer.
    func reconnecting(_ h: RuntimeHarness, _ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        var pressed = Date.distantPast
        h.wait(what, timeout: 10, file: file, line: line) {
            if condition() { return true }
            if h.header.contains("offline"), Date().timeIntervalSince(pressed) > 0.3 {
                h.press(.char("r"))
                pressed = Date()
            }
            return false
        }
    }

    /// No secret in the log, on the screen, in the transcript, or in `texts` (error messages).
    func assertNoSecrets(_ secrets: [String], _ h: RuntimeHarness, texts: [String] = [], file: StaticString = #filePath, line: UInt = #line) {
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        let transcript = h.transcriptPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        XCTAssertFalse(log.isEmpty, "the runtime logged", file: file, line: line)
        XCTAssertFalse(transcript.isEmpty, "the conversation was saved", file: file, line: line)
        XCTAssertFalse(secrets.isEmpty, file: file, line: line)
        for secret in secrets {
            for (place, text) in [("the log", log), ("the screen", h.screen), ("the transcript", transcript)] + texts.map({ ("an error", $0) }) {
                XCTAssertFalse(text.contains(secret), "\(place) shows a secret", file: file, line: line)
            }
        }
    }

    /// The secrets the loopback endpoint holds or gave out: every access token, the refresh token, the
    /// client secret.
    var googleSecrets: [String] { google.issued + ["1//loopback-refresh-token", "loopback-client-secret"] }

    // MARK: - Vertex AI, application default credentials

    /// A conversation on Vertex AI from `environment` whose tokens live 15 minutes: a turn, then twelve minutes
    /// on (inside google-auth's 3 min 45 s margin) a voice switch, whose connection gets a new token first and
    /// resumes; a second turn. Checks the grant behind each token, the project in the model name, and secrets.
    func conversationAcrossARefresh(environment: [String: String], grant: String, project: String) async throws {
        let google = google!
        google.setTokenLifetime(900)
        let h = try await vertexHarness(environment: environment, accepts: { google.accepts($0) })
        h.start()
        h.waitUntilLive()
        converse(h, "hello")
        XCTAssertEqual(google.grants, [grant])

        h.advance(12 * 60)
        switchVoice(h)
        converse(h, "still there after a refresh")
        XCTAssertEqual(google.grants, [grant, grant], "one new token, for the connection after expiry neared")
        let stats = h.simulator.stats()
        XCTAssertEqual(stats.credentialsRefused, 0)
        XCTAssertEqual(stats.backends, [.vertex, .vertex])
        XCTAssertEqual(stats.setups.last?.resumed, true)
        let model = "projects/\(project)/locations/us-central1/publishers/google/models/gemini-live-2.5-flash-native-audio"
        XCTAssertEqual(stats.setups.map(\.model), [model, model])
        assertNoSecrets(googleSecrets, h)
        await h.stop()
    }

    /// gcloud's ADC file (`gcloud auth application-default login`): a refresh token, exchanged at the file's
    /// token_uri; the project is the file's quota project.
    func testUserCredentialsHoldAConversationAndRefreshBeforeTheNextConnection() async throws {
        try google.authorizedUserJSON(quotaProject: "user-project")
            .write(toFile: dir + "/gcloud/application_default_credentials.json", atomically: true, encoding: .utf8)
        try await conversationAcrossARefresh(environment: isolated(), grant: "refresh_token", project: "user-project")
    }

    /// The GCE metadata server (`GCE_METADATA_HOST`), which also names the project.
    func testTheMetadataServerHoldsAConversationAndGivesANewTokenBeforeTheNextConnection() async throws {
        try await conversationAcrossARefresh(
            environment: isolated(["GCE_METADATA_HOST": google.metadataHost]), grant: "metadata", project: "metadata-project")
    }

    /// `gcloud auth print-access-token` when gcloud is on PATH and nothing else is there: its tokens carry no
    /// expiry, so each connection runs it again.
    func testGcloudOnPathHoldsAConversationAndIsAskedAgainForEachConnection() async throws {
        let calls = dir + "/gcloud-calls"
        let bin = dir + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
            #!/bin/sh
            PATH=/usr/bin:/bin
            [ "$1 $2" = "auth print-access-token" ] || exit 2
            n=$(( $(cat '\(calls)' 2>/dev/null || echo 0) + 1 ))
            echo "$n" > '\(calls)'
            echo "ya29.from-gcloud-$n"
            """.write(toFile: bin + "/gcloud", atomically: true, encoding: .utf8)
        chmod(bin + "/gcloud", 0o755)
        let h = try await vertexHarness(environment: isolated(["GOOGLE_CLOUD_PROJECT": "gcloud-project", "PATH": bin]), accepts: { $0.hasPrefix("ya29.from-gcloud-") })
        h.start()
        h.waitUntilLive()
        converse(h, "hello through gcloud")
        switchVoice(h)
        converse(h, "and again")
        let ran = Int((try String(contentsOfFile: calls, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(ran, 2, "one token for each connection")
        XCTAssertEqual(h.simulator.stats().credentialsRefused, 0)
        assertNoSecrets(["ya29.from-gcloud-1", "ya29.from-gcloud-2"], h)
        await h.stop()
    }

    /// Vertex AI takes no function `behavior` and runs every function synchronously, 3.8's included: the setup
    /// declares none, the response carries no `scheduling`, and the tool pane does not call the call async.
    func testOnVertexAToolCallOfA38ModelIsSynchronous() async throws {
        let google = google!
        let h = try await vertexHarness(
            environment: isolated(["GCE_METADATA_HOST": google.metadataHost]), model: "gemini-3.8-live", accepts: { google.accepts($0) })
        h.start()
        h.waitUntilLive()
        h.typeTurn("what time is it")
        h.wait("a toolResponse on the wire") { !h.wire.toolResponses.isEmpty }
        let tools = try XCTUnwrap(h.wire.setups.first?["tools"] as? [[String: Any]])
        let declarations = tools.compactMap { $0["functionDeclarations"] as? [[String: Any]] }.flatMap { $0 }
        XCTAssertFalse(declarations.isEmpty)
        XCTAssertTrue(declarations.allSatisfy { $0["behavior"] == nil }, "\(declarations)")
        let responses = try XCTUnwrap(h.wire.toolResponses.first?["functionResponses"] as? [[String: Any]])
        XCTAssertEqual(responses.first?["name"] as? String, "get_current_time")
        XCTAssertNil(responses.first?["scheduling"], "\(responses)")
        h.wait("the tool pane to show the call finished") { h.screen.contains("get_cur") && h.screen.contains(" ok ") }
        XCTAssertFalse(h.screen.contains("async"), h.screen)
        h.waitForScreen("right now")
        XCTAssertEqual(h.simulator.stats().toolResponseSchedulings, [])
        await h.stop()
    }

    // MARK: - Ephemeral tokens from a token command

    /// A token command on the Gemini API: the simulator spends each `auth_tokens/…` on a new session, closes
    /// the connection once (an internal error) and refuses the handle, so the conversation needs a second
    /// token, which parley gets from the command and carries on.
    func ephemeralHarness(command: String, closeOnSecondTurn: Bool = true) async throws -> RuntimeHarness {
        var options = SimulatorOptions.quick
        options.acceptsEphemeralToken = { $0.hasPrefix("auth_tokens/loopback-") }
        if closeOnSecondTurn {
            options.faults = SimulatorFaults(closeOnTurn: (answeredTurns: 1, reason: .internalError, times: 1), refuseHandles: .sessionExpired)
        }
        let environment = isolated()
        return try await RuntimeHarness(simulator: options, transcripts: true, logger: try logger, access: AccessResolver { config, time in
            try await LiveAccess.prepared(config, environment: environment, time: time)
        }) { c in
            c.auth.tokenCommand = command
        }
    }

    func testATokenCommandMintsATokenForEachNewSessionAndTheConversationGoesOn() async throws {
        let command = try CountingTokenCommand()
        defer { command.remove() }
        let h = try await ephemeralHarness(command: command.script)
        h.start()
        h.waitUntilLive()
        XCTAssertEqual(command.calls, 1, "one token fetched at launch, spent by the first session")
        converse(h, "first question")
        // The close: the resume is refused, so a fresh session needs a fresh token; the turn is sent again.
        h.typeTurn("second question")
        reconnecting(h, "the second question answered on a fresh session") {
            h.simulator.stats().turnsAnswered == 2 && h.header.contains(" live")
        }
        XCTAssertEqual(command.calls, 2, "no token for the resume, one for the fresh session")
        let stats = h.simulator.stats()
        XCTAssertEqual(stats.ephemeralTokensSpent, 2)
        XCTAssertFalse(stats.closesSent.contains(.tokenSpent), "a spent token was never sent again")
        // A voice switch: the simulator refuses every handle, so the switch too ends in a fresh session, with a
        // token of its own.
        h.wait("a resumption handle for the fresh session") { h.launch.session.hasResumptionHandle }
        switchVoice(h)
        XCTAssertEqual(h.simulator.stats().setups.last?.resumed, false)
        XCTAssertEqual(command.calls, 3)
        XCTAssertEqual(h.simulator.stats().ephemeralTokensSpent, 3)
        XCTAssertFalse(h.simulator.stats().closesSent.contains(.tokenSpent), "a spent token was never sent again")
        assertNoSecrets(CountingTokenCommand.tokens(upTo: command.calls), h)
        await h.stop()
    }

    /// The command fails when a new session needs a token: the screen says the command failed and what it
    /// printed on stderr, the conversation waits offline, and nothing of a token shows.
    func testATokenCommandThatFailsIsShownWithItsStderr() async throws {
        let command = try CountingTokenCommand()
        defer { command.remove() }
        // The first call mints; later ones fail, as a backend that refuses would.
        let wrapper = dir + "/mint.sh"
        try """
            #!/bin/sh
            if [ -f '\(command.countFile)' ]; then echo "mint: the backend refused: quota for today is used up" >&2; exit 3; fi
            exec '\(command.script)'
            """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        let h = try await ephemeralHarness(command: wrapper)
        h.start()
        h.waitUntilLive()
        converse(h, "first question")
        h.typeTurn("second question")
        reconnecting(h, "the command's failure on the screen") { h.screen.contains("quota for today") }
        // What failed, what it said, what to do; not taken for a network problem.
        let screen = Self.transcript(h)
        XCTAssertTrue(screen.contains("parley could not get a credential for the connection"), screen)
        XCTAssertTrue(screen.contains("the token command failed with status 3; it said: mint: the backend refused"), screen)
        XCTAssertTrue(screen.contains("run it yourself to see why"), screen)
        XCTAssertFalse(screen.contains("the network dropped"), screen)
        XCTAssertEqual(h.simulator.stats().turnsAnswered, 1, "the second question waits")
        XCTAssertEqual(command.calls, 1)
        assertNoSecrets(CountingTokenCommand.tokens(upTo: 1), h)
        await h.stop()
    }
}
