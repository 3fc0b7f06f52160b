import AppTesting
import AuthTesting
import Foundation
import GoogleAuth
import Live
import XCTest

@testable import App

/// Finding Vertex AI credentials where that means asking a server (the loopback token endpoint and metadata
/// server, or a port that refuses), and what `parley doctor` says about them. What needs no server is in
/// `VertexAccessTests`.
final class VertexCredentialTests: NoCredentialsTestCase {
    func testAProjectFromTheVariablesBeatsAnAPIKeyAndNeedsCredentials() async throws {
        var c = Config()
        c.vertex.enabled = true
        do {
            _ = try await LiveAccess.resolve(c, environment: isolated(["GOOGLE_API_KEY": "AIzaKEY", "GOOGLE_CLOUD_PROJECT": "p"]))
            XCTFail("no credentials: must fail")
        } catch let f as CredentialFailure {
            XCTAssertTrue(f.message.hasPrefix("no Google Cloud credentials found; tried"), f.message)
        }
    }

    func testServiceAccountGivesProjectLocationAndEndpoint() async throws {
        let google = try LoopbackGoogle()
        try await google.start()
        let file = dir + "/sa.json"
        try google.serviceAccountJSON(projectID: "from-file").write(toFile: file, atomically: true, encoding: .utf8)
        var c = Config()
        c.vertex.enabled = true
        let env = isolated(["GOOGLE_APPLICATION_CREDENTIALS": file, "GOOGLE_CLOUD_LOCATION": "us-central1"])
        let access = try await LiveAccess.resolve(c, environment: env)
        XCTAssertEqual(access.backend, .vertex(project: "from-file", location: "us-central1"))
        XCTAssertEqual(access.projectFrom, file)
        XCTAssertEqual(access.endpoint, "wss://us-central1-aiplatform.googleapis.com" + LiveBackend.vertexPath)
        // --endpoint without a path is a base URL: the Vertex path is added, as the SDKs' base_url.
        c.endpoint = "ws://127.0.0.1:9000"
        let based = try await LiveAccess.resolve(c, environment: env)
        XCTAssertEqual(based.endpoint, "ws://127.0.0.1:9000" + LiveBackend.vertexPath)

        // parley doctor: the source and where, the project, the token's expiry; never a value.
        let found = await DoctorAccess.run(c, environment: env)
        let text = found.checks.map { "\($0.item): \($0.detail)" }.joined(separator: "\n")
        XCTAssertEqual(found.checks.map(\.status), [.ok, .ok, .ok, .ok], text)
        XCTAssertTrue(text.contains("project from-file (from \(file)), location us-central1"), text)
        XCTAssertTrue(text.contains("token endpoint: the token endpoint \(google.tokenURI) answers (HTTP 404, "), text)
        XCTAssertTrue(text.contains("service account \(LoopbackGoogle.clientEmail) from \(file) (GOOGLE_APPLICATION_CREDENTIALS)"), text)
        XCTAssertTrue(text.contains("fetched (expires in 60 min)"), text)
        XCTAssertFalse(text.contains("ya29"), text)
        guard case .bearer(let token)? = found.credential else { return XCTFail("\(String(describing: found.credential))") }
        XCTAssertTrue(google.accepts(token.revealed))
        await google.stop()
    }

    /// parley doctor on a VM: the metadata server answers as one, then gives a token.
    func testDoctorSaysTheMetadataServerAnswers() async throws {
        let google = try LoopbackGoogle()
        try await google.start()
        var c = Config()
        c.vertex.enabled = true
        let found = await DoctorAccess.run(c, environment: isolated(["GCE_METADATA_HOST": google.metadataHost]))
        let text = found.checks.map { "\($0.item): \($0.detail)" }.joined(separator: "\n")
        XCTAssertEqual(found.checks.map(\.status), [.ok, .ok, .ok, .ok], text)
        XCTAssertTrue(text.contains("project metadata-project (from the metadata server)"), text)
        XCTAssertTrue(text.contains("metadata server: the metadata server at \(google.metadataHost) answers ("), text)
        XCTAssertEqual(google.grants, ["metadata"])
        for token in google.issued { XCTAssertFalse(text.contains(token), text) }
        await google.stop()
    }

    /// The key file's token endpoint is down: its own line fails, naming the URL and the file, with what to
    /// check; no token is asked for, and the Live endpoint is not tried with none.
    func testDoctorSaysWhenTheTokenEndpointIsDown() async throws {
        let google = try LoopbackGoogle()
        try await google.start()
        let file = dir + "/sa.json"
        try google.serviceAccountJSON().write(toFile: file, atomically: true, encoding: .utf8)
        await google.stop()  // the port the file names now refuses connections
        var c = Config()
        c.vertex.enabled = true
        let found = await DoctorAccess.run(c, environment: isolated(["GOOGLE_APPLICATION_CREDENTIALS": file]), timeout: 2)
        let text = found.checks.map { "\($0.item): \($0.detail) [\($0.fix ?? "")]" }.joined(separator: "\n")
        XCTAssertEqual(found.checks.map(\.status), [.ok, .ok, .fail, .skip], text)
        let line = try XCTUnwrap(found.checks.first { $0.item == "token endpoint" })
        XCTAssertTrue(line.detail.hasPrefix("the token endpoint \(google.tokenURI) (token_uri in \(file)) does not answer: cannot connect to 127.0.0.1:\(google.port)"), line.detail)
        XCTAssertTrue(line.fix?.contains("proxy, firewall") == true, text)
        XCTAssertEqual(found.checks.last?.detail, "not fetched: the token endpoint does not answer")
        XCTAssertNil(found.credential)
        XCTAssertTrue(google.issued.isEmpty)
        XCTAssertFalse(text.contains("BEGIN PRIVATE KEY") || text.contains("PRIVATE KEY-----"), text)
    }

}
