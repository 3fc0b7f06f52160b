import AuthTesting
import Foundation
import GoogleAuth
import Live
import ParleyTesting
import XCTest

/// Application default credentials resolved and exchanged as google-auth does, against loopback stand-ins for
/// Google's token endpoint and metadata server.
final class CredentialSourceTests: XCTestCase {
    var google: LoopbackGoogle!
    var dir: String!

    override func setUp() async throws {
        google = try LoopbackGoogle()
        try await google.start()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-adc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await google.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = "\(dir!)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// No gcloud, no metadata server, no ADC file: only what the test sets.
    func environment(_ extra: [String: String]) -> [String: String] {
        ["HOME": dir, "PATH": dir, "CLOUDSDK_CONFIG": dir + "/gcloud", "GCE_METADATA_HOST": "127.0.0.1:1"].merging(extra) { $1 }
    }

    func testServiceAccountJWTIsVerifiedAndExchanged() async throws {
        let file = try write("sa.json", google.serviceAccountJSON())
        let adc = ApplicationDefaultCredentials(environment: environment(["GOOGLE_APPLICATION_CREDENTIALS": file]))
        let source = try await adc.resolve()
        XCTAssertTrue(source.description.contains(LoopbackGoogle.clientEmail), source.description)
        XCTAssertTrue(source.description.contains("GOOGLE_APPLICATION_CREDENTIALS"))
        XCTAssertFalse(source.description.contains("PRIVATE KEY"))
        let token = try await source.fetch(wallNow: Date().timeIntervalSince1970, environment: adc.environment, timeout: 5)
        XCTAssertEqual(google.issued, [token.token.revealed])
        XCTAssertEqual(google.grants, ["jwt-bearer"])
        XCTAssertEqual(token.expiresIn, 3600)
        let project = await adc.project(for: source)
        XCTAssertEqual(project?.project, "loopback-project")
    }

    func testAJWTSignedWithAnotherKeyIsRefusedAsInvalidGrant() async throws {
        let other = try LoopbackGoogle()
        // Another key, this endpoint: the signature does not verify.
        let file = try write("other.json", other.serviceAccountJSON(tokenURI: google.tokenURI))
        let adc = ApplicationDefaultCredentials(environment: environment(["GOOGLE_APPLICATION_CREDENTIALS": file]))
        do {
            _ = try await adc.resolve().fetch(wallNow: Date().timeIntervalSince1970, environment: adc.environment, timeout: 5)
            XCTFail("the endpoint should refuse the JWT")
        } catch let failure {
            XCTAssertTrue(failure.message.contains("invalid_grant"), failure.message)
            XCTAssertTrue(failure.message.contains(file), failure.message)
        }
        XCTAssertEqual(google.refusals, ["invalid_grant: Invalid JWT Signature."])
        XCTAssertTrue(google.issued.isEmpty)
    }

    func testAnOldClockIsRefusedByTheEndpoint() async throws {
        let file = try write("sa.json", google.serviceAccountJSON())
        let adc = ApplicationDefaultCredentials(environment: environment(["GOOGLE_APPLICATION_CREDENTIALS": file]))
        do {
            _ = try await adc.resolve().fetch(wallNow: Date().timeIntervalSince1970 - 7200, environment: adc.environment, timeout: 5)
            XCTFail("an iat two hours old must be refused")
        } catch let failure {
            XCTAssertTrue(failure.message.contains("invalid_grant"), failure.message)
        }
    }

    func testGcloudADCFileWithARefreshToken() async throws {
        try FileManager.default.createDirectory(atPath: dir + "/gcloud", withIntermediateDirectories: true)
        _ = try write("gcloud/application_default_credentials.json", google.authorizedUserJSON(quotaProject: "quota-proj"))
        let adc = ApplicationDefaultCredentials(environment: environment([:]))
        let source = try await adc.resolve()
        XCTAssertTrue(source.description.contains("gcloud's application default credentials"), source.description)
        let token = try await source.fetch(wallNow: Date().timeIntervalSince1970, environment: adc.environment, timeout: 5)
        XCTAssertEqual(google.grants, ["refresh_token"])
        XCTAssertTrue(google.accepts(token.token.revealed))
        // A revoked refresh token: say to log in again.
        google.revokeRefreshToken()
        do {
            _ = try await source.fetch(wallNow: Date().timeIntervalSince1970, environment: adc.environment, timeout: 5)
            XCTFail("a revoked refresh token must fail")
        } catch let failure {
            XCTAssertTrue(failure.message.contains("invalid_grant"), failure.message)
            XCTAssertTrue(failure.message.contains("application_default_credentials.json"), failure.message)
            XCTAssertTrue(failure.hint.contains("gcloud auth application-default login"), failure.hint)
            XCTAssertFalse(failure.description.contains("1//loopback"), "the refresh token must not appear")
        }
    }

    func testMetadataServerAfterTheFiles() async throws {
        let adc = ApplicationDefaultCredentials(environment: environment(["GCE_METADATA_HOST": google.metadataHost]))
        let source = try await adc.resolve()
        guard case .metadataServer(let host) = source else { return XCTFail("\(source)") }
        XCTAssertEqual(host, google.metadataHost)
        let token = try await source.fetch(wallNow: Date().timeIntervalSince1970, environment: adc.environment, timeout: 5)
        XCTAssertEqual(google.grants, ["metadata"])
        XCTAssertTrue(google.accepts(token.token.revealed))
        let project = await adc.project(for: source)
        XCTAssertEqual(project?.project, "metadata-project")
    }

    func testGcloudOnPathIsTheLastSource() async throws {
        let gcloud = try write("gcloud", "#!/bin/sh\n[ \"$1 $2\" = \"auth print-access-token\" ] && echo ya29.from-gcloud\n")
        chmod(gcloud, 0o755)
        let adc = ApplicationDefaultCredentials(environment: environment([:]), metadataTimeout: 1)
        let source = try await adc.resolve()
        guard case .gcloud = source else { return XCTFail("\(source)") }
        let token = try await source.fetch(wallNow: 0, environment: adc.environment, timeout: 5)
        XCTAssertEqual(token.token.revealed, "ya29.from-gcloud")
        XCTAssertNil(token.expiresIn)
    }

    func testNoCredentialsListsWhatWasTried() async throws {
        let adc = ApplicationDefaultCredentials(environment: environment([:]), metadataTimeout: 1)
        do {
            _ = try await adc.resolve()
            XCTFail("nothing should be found")
        } catch let failure {
            for tried in ["GOOGLE_APPLICATION_CREDENTIALS", "application_default_credentials.json", "metadata server", "gcloud"] {
                XCTAssertTrue(failure.message.contains(tried), failure.message)
            }
            XCTAssertTrue(failure.hint.contains("gcloud auth application-default login"), failure.hint)
        }
    }

    func testMalformedFilesNameTheFileAndTheField() throws {
        XCTAssertThrowsError(try CredentialsFile.parse(Data("{\"type\": \"service_account\", \"client_email\": \"a@b\"}".utf8), path: "/x/sa.json")) {
            let f = $0 as? CredentialFailure
            XCTAssertEqual(f?.message, "/x/sa.json: field private_key is missing or not a string")
        }
        XCTAssertThrowsError(try CredentialsFile.parse(Data("not json".utf8), path: "/x/sa.json")) {
            XCTAssertEqual(($0 as? CredentialFailure)?.message, "/x/sa.json is not a JSON object")
        }
        XCTAssertThrowsError(try CredentialsFile.parse(Data("{\"type\": \"external_account\"}".utf8), path: "/x/wif.json")) {
            let f = $0 as? CredentialFailure
            XCTAssertTrue(f?.message.contains("external_account") == true, "\(String(describing: f))")
            XCTAssertTrue(f?.hint.contains("service_account and authorized_user") == true, "\(String(describing: f))")
        }
        let broken = google.serviceAccountJSON().replacingOccurrences(of: "BEGIN PRIVATE KEY", with: "BEGIN NOTHING")
        guard case .serviceAccount(let account) = try CredentialsFile.parse(Data(broken.utf8), path: "/x/sa.json") else { return XCTFail() }
        XCTAssertThrowsError(try ServiceAccountJWT.assertion(account, now: 0)) {
            XCTAssertEqual(($0 as? CredentialFailure)?.message, "/x/sa.json: field private_key is not an RSA private key in PEM form")
        }
    }

    func testTokenCommandOutputForms() throws {
        XCTAssertEqual(try TokenCommand.parse(Data("auth_tokens/abc\n".utf8)).token.revealed, "auth_tokens/abc")
        let json = try TokenCommand.parse(Data(#"{"token": "auth_tokens/x", "expires_at": "2026-11-24T03:00:00Z"}"#.utf8))
        XCTAssertEqual(json.token.revealed, "auth_tokens/x")
        XCTAssertEqual(json.expiresAt, 1_795_489_200)
        XCTAssertEqual(try TokenCommand.parse(Data(#"{"token": "t", "expires_at": "2026-11-24T04:00:00.5+01:00"}"#.utf8)).expiresAt, 1_795_489_200.5)
        XCTAssertEqual(try TokenCommand.parse(Data(#"{"token": "t", "expires_at": 1795489200}"#.utf8)).expiresAt, 1_795_489_200)
        XCTAssertThrowsError(try TokenCommand.parse(Data("  \n".utf8))) {
            XCTAssertEqual(($0 as? CredentialFailure)?.message, "the token command printed nothing")
        }
        XCTAssertThrowsError(try TokenCommand.parse(Data(#"{"tok": 1}"#.utf8))) {
            XCTAssertEqual(($0 as? CredentialFailure)?.message, "the token command's JSON has no field token")
        }
    }

    func testTokenCommandFailureShowsStderrAndAHangIsKilled() async throws {
        let failing = TokenCommand(command: "echo 'not logged in' >&2; exit 3", timeout: 5)
        do {
            _ = try await failing.run(environment: ProcessInfo.processInfo.environment)
            XCTFail("must fail")
        } catch let f {
            XCTAssertEqual(f.message, "the token command failed with status 3; it said: not logged in")
        }
        let hanging = TokenCommand(command: "sleep 30", timeout: 0.5)
        let start = Date()
        do {
            _ = try await hanging.run(environment: ProcessInfo.processInfo.environment)
            XCTFail("must time out")
        } catch let f {
            XCTAssertTrue(f.message.hasPrefix("the token command did not finish within"), f.message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testAccessTokensAreRefreshedAheadOfExpiryOnTheSessionClock() async throws {
        let file = try write("sa.json", google.serviceAccountJSON())
        google.setTokenLifetime(600)
        let clock = ManualTime()
        let authorizer = RenewingAuthorizer(
            .applicationDefault(ApplicationDefaultCredentials(environment: environment(["GOOGLE_APPLICATION_CREDENTIALS": file]))),
            time: clock.source)
        let first = try await authorizer.credential(newSession: true)
        let resumed = try await authorizer.credential(newSession: false)
        XCTAssertEqual(resumed, first)
        let another = try await authorizer.credential(newSession: true)
        XCTAssertEqual(another, first, "a bearer token covers new sessions too")
        clock.advance(600 - 226)
        let later = try await authorizer.credential(newSession: false)
        XCTAssertEqual(later, first, "still more than 3 min 45 s left")
        clock.advance(2)
        let second = try await authorizer.credential(newSession: false)
        XCTAssertNotEqual(second, first, "refreshed 3 min 45 s before expiry")
        XCTAssertEqual(google.issued.count, 2)
        guard case .bearer = second else { return XCTFail("\(second)") }
    }

    func testTokenCommandRunsForNewSessionsNotForResumes() async throws {
        let command = try CountingTokenCommand()
        defer { command.remove() }
        let authorizer = RenewingAuthorizer(.tokenCommand(TokenCommand(command: command.script), bearer: false))
        try await authorizer.prepare()
        XCTAssertEqual(command.calls, 1)
        let first = try await authorizer.credential(newSession: true)
        XCTAssertEqual(first, .ephemeralToken(Secret("auth_tokens/loopback-1")), "the prepared token serves the first session")
        let resumed = try await authorizer.credential(newSession: false)
        XCTAssertEqual(resumed, first, "a resume reuses the token")
        XCTAssertEqual(command.calls, 1)
        let next = try await authorizer.credential(newSession: true)
        XCTAssertEqual(next, .ephemeralToken(Secret("auth_tokens/loopback-2")))
        authorizer.discard()
        let renewed = try await authorizer.credential(newSession: false)
        XCTAssertEqual(renewed, .ephemeralToken(Secret("auth_tokens/loopback-3")), "a discarded token is never sent again")
        XCTAssertEqual(command.calls, 3)
    }
}
