import AppTesting
import Foundation
import Live
import XCTest

@testable import App

/// How the command line, the config file and the SDKs' variables choose the backend, the project and the
/// credential, where no server is asked; what asks one is in `VertexCredentialTests`.
final class VertexAccessTests: NoCredentialsTestCase {
    func testVertexAndAuthSectionsParse() throws {
        var c = Config()
        try c.apply(toml: """
            [vertex]
            project = "my-project"
            location = "europe-west4"

            [auth]
            token_command = "mint --once"
            token_timeout = 5
            """, file: "/tmp/c.toml")
        XCTAssertEqual(c.vertex, .init(enabled: true, project: "my-project", location: "europe-west4"))
        XCTAssertEqual(c.auth.tokenCommand, "mint --once")
        XCTAssertEqual(c.auth.tokenTimeout, 5)
        XCTAssertTrue(c.usesVertex(environment: [:]))
        XCTAssertTrue(c.printed.contains("[vertex]\nenabled = true\nproject = \"my-project\""), c.printed)
        var bad = Config()
        XCTAssertThrowsError(try bad.apply(toml: "[vertex]\nregion = \"x\"\n", file: "/tmp/c.toml")) {
            XCTAssertTrue("\($0)".contains("vertex.region"), "\($0)")
        }
    }

    func testTheSDKVariablesChooseVertexEnterpriseFirst() {
        let c = Config()
        XCTAssertFalse(c.usesVertex(environment: [:]))
        XCTAssertTrue(c.usesVertex(environment: ["GOOGLE_GENAI_USE_VERTEXAI": "true"]))
        XCTAssertTrue(c.usesVertex(environment: ["GOOGLE_GENAI_USE_VERTEXAI": "1"]))
        XCTAssertFalse(c.usesVertex(environment: ["GOOGLE_GENAI_USE_ENTERPRISE": "false", "GOOGLE_GENAI_USE_VERTEXAI": "true"]))
        var off = Config()
        off.vertex.enabled = false
        XCTAssertFalse(off.usesVertex(environment: ["GOOGLE_GENAI_USE_VERTEXAI": "true"]))
    }

    func testVertexFlagsAndTheModelDefault() throws {
        try "".write(toFile: dir + "/none.toml", atomically: true, encoding: .utf8)
        let c = try CommonOptions.parse(["--config", dir + "/none.toml", "--vertex", "--project", "p", "--location", "us-east4"]).resolve()
        XCTAssertEqual(c.vertex, .init(enabled: true, project: "p", location: "us-east4"))
        XCTAssertEqual(c.model, LiveModel.vertexDefaultID)
        let setup = c.setup(tools: [], manualActivity: true, backend: .vertex(project: "p", location: "us-east4"))
        XCTAssertEqual(setup.model, "projects/p/locations/us-east4/publishers/google/models/gemini-live-2.5-flash-native-audio")
        // A model Vertex AI does not serve under that name is refused before connecting, naming the backend.
        XCTAssertThrowsError(try CommonOptions.parse(["--config", dir + "/none.toml", "--vertex", "--model", "gemini-2.5-flash-native-audio-preview-12-2025"]).resolve()) {
            XCTAssertTrue("\($0)".contains("Vertex AI"), "\($0)")
        }
    }

    func testExpressModeIsAnAPIKeyWithoutAProject() async throws {
        var c = Config()
        c.vertex.enabled = true
        let access = try await LiveAccess.resolve(c, environment: isolated(["GOOGLE_API_KEY": "AIzaKEY"]))
        XCTAssertEqual(access.backend, .vertexExpress)
        XCTAssertEqual(access.credential, .apiKey(Secret("AIzaKEY")))
        XCTAssertEqual(access.endpoint, "wss://aiplatform.googleapis.com" + LiveBackend.vertexPath)
    }

    func testDoctorNamesAMalformedFileAndField() async throws {
        let file = dir + "/broken.json"
        try #"{"type": "service_account", "client_email": "a@b"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        var c = Config()
        c.vertex.enabled = true
        let found = await DoctorAccess.run(c, environment: isolated(["GOOGLE_APPLICATION_CREDENTIALS": file, "GOOGLE_CLOUD_PROJECT": "p"]))
        XCTAssertEqual(found.checks.first?.status, .fail)
        XCTAssertEqual(found.checks.first?.detail, "\(file): field private_key is missing or not a string")
    }

    func testNoProjectSaysWhereItLooked() async throws {
        var c = Config()
        c.vertex.enabled = true
        c.auth.tokenCommand = "echo ya29.x"
        do {
            _ = try await LiveAccess.resolve(c, environment: isolated())
            XCTFail("no project: must fail")
        } catch let f as CredentialFailure {
            XCTAssertTrue(f.message.hasPrefix("no Google Cloud project for Vertex AI"), f.message)
            XCTAssertTrue(f.hint.contains("--project"), f.hint)
        }
    }
}
