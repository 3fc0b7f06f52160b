import XCTest

@testable import Live

/// The backend axis (Vertex AI's endpoint, model names and differences) and the credential close class.
final class VertexBackendTests: XCTestCase {
    func testEndpointPerLocationAsTheSDKsBuildIt() {
        let path = "/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent"
        XCTAssertEqual(LiveBackend.vertex(project: "p", location: "us-central1").defaultEndpoint(for: .none),
                       "wss://us-central1-aiplatform.googleapis.com" + path)
        XCTAssertEqual(LiveBackend.vertex(project: "p", location: "global").defaultEndpoint(for: .none),
                       "wss://aiplatform.googleapis.com" + path)
        XCTAssertEqual(LiveBackend.vertex(project: "p", location: "eu").defaultEndpoint(for: .none),
                       "wss://aiplatform.eu.rep.googleapis.com" + path)
        XCTAssertEqual(LiveBackend.vertexExpress.defaultEndpoint(for: .apiKey(Secret("k"))), "wss://aiplatform.googleapis.com" + path)
        XCTAssertEqual(LiveBackend.geminiAPI.defaultEndpoint(for: .apiKey(Secret("k"))), Credential.apiKey(Secret("k")).defaultEndpoint)
    }

    func testModelNamesPerBackend() {
        let vertex = LiveBackend.vertex(project: "proj", location: "us-east4")
        XCTAssertEqual(vertex.modelResource("gemini-live-2.5-flash-native-audio"),
                       "projects/proj/locations/us-east4/publishers/google/models/gemini-live-2.5-flash-native-audio")
        XCTAssertEqual(vertex.modelResource("models/gemini-3.8-live"), "projects/proj/locations/us-east4/publishers/google/models/gemini-3.8-live")
        XCTAssertEqual(LiveBackend.vertexExpress.modelResource("gemini-3.8-live"), "publishers/google/models/gemini-3.8-live")
        XCTAssertEqual(LiveBackend.geminiAPI.modelResource("projects/p/locations/l/publishers/google/models/m"), "models/m")
        // The model table reads every form.
        XCTAssertEqual(LiveModel.named("projects/p/locations/l/publishers/google/models/gemini-3.8-live")?.id, "gemini-3.8-live")
        XCTAssertEqual(LiveModel.bareID("gemini-3.8-live"), "gemini-3.8-live")
    }

    func testBearerTokenHeaderIsRedacted() {
        let c = Credential.bearer(Secret("ya29.secret"))
        XCTAssertEqual(c.headers.first?.name, "Authorization")
        XCTAssertEqual(c.headers.first?.value, "Bearer ya29.secret")
        XCTAssertFalse("\(c)".contains("ya29"))
    }

    func testBackendRefusesWhatItDoesNotTakeNamingOptionAndBackend() {
        var options = ModelOptions()
        options.functionBehaviors = ["lookup": .nonBlocking]
        XCTAssertThrowsError(try LiveModel.check("gemini-live-2.5-flash-native-audio", options, on: .vertex)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("behavior of lookup"), text)
            XCTAssertTrue(text.contains("Vertex AI"), text)
        }
        XCTAssertNoThrow(try LiveModel.check("gemini-3.8-live", options, on: .geminiAPI))
        XCTAssertThrowsError(try LiveModel.check("gemini-2.5-flash-native-audio-preview-12-2025", ModelOptions(), on: .vertex)) { error in
            XCTAssertTrue("\(error)".contains("gemini-live-2.5-flash-native-audio"), "\(error)")
        }
        XCTAssertEqual(LiveModel.availability(of: "gemini-3.8-live", on: .vertex), .unconfirmed)
        XCTAssertEqual(LiveModel.defaultID(on: .vertex), "gemini-live-2.5-flash-native-audio")
    }

    func testSetupAdaptedToEachBackend() {
        var setup = Setup(model: "m", tools: [Tool(functionDeclarations: [FunctionDeclaration(name: "f", behavior: "NON_BLOCKING")])],
                          sessionResumption: SessionResumptionConfig(transparent: true))
        let vertex = setup.adapted(to: .vertex)
        XCTAssertNil(vertex.tools?.first?.functionDeclarations?.first?.behavior)
        XCTAssertEqual(vertex.sessionResumption?.transparent, true)
        setup = setup.adapted(to: .geminiAPI)
        XCTAssertNil(setup.sessionResumption?.transparent)
        XCTAssertEqual(setup.tools?.first?.functionDeclarations?.first?.behavior, "NON_BLOCKING")
    }

    func testModelListingShowsBothBackends() {
        let listing = LiveModel.listing
        XCTAssertTrue(listing.contains("Gemini API: yes · Vertex AI: not confirmed"), listing)
        XCTAssertTrue(listing.contains("gemini-live-2.5-flash-native-audio"), listing)
        XCTAssertTrue(listing.contains("Vertex AI: no (Vertex AI serves it as gemini-live-2.5-flash-native-audio)"), listing)
    }

    // MARK: - Credential closes

    func testSpentAndExpiredTokensAreACredentialClassNeverRetried() {
        XCTAssertEqual(CloseReason.tokenSpent.kind, .credential)
        XCTAssertEqual(CloseReason.tokenExpired.kind, .credential)
        // Matched by how it begins, whatever follows.
        XCTAssertEqual(CloseReason(code: 1011, reason: "auth token has expired. Mint a new one with expire_ti").kind, .credential)
        XCTAssertTrue(CloseReason.tokenSpent.isFatal)
        XCTAssertTrue(CloseReason.tokenSpent.hint.contains("token_command"), CloseReason.tokenSpent.hint)
        XCTAssertTrue(CloseReason.tokenSpent.hint.contains("single use"), CloseReason.tokenSpent.hint)
        // An ordinary 1011 is still transient.
        XCTAssertEqual(CloseReason.internalError.kind, .transient)
    }

    func testWithoutARenewableCredentialASpentTokenStopsAtOnce() {
        var m = ConnectionMachine()
        XCTAssertEqual(m.handle(.start, now: 0), [.connect(id: 1, resumeWith: nil)])
        XCTAssertEqual(m.handle(.transportOpened(id: 1), now: 0), [.sendSetup(id: 1, resumeWith: nil)])
        XCTAssertEqual(m.handle(.transportClosed(id: 1, .tokenSpent), now: 0.1), [.fail(.tokenSpent)])
        XCTAssertEqual(m.state, .failed(.tokenSpent))
    }

    func testWithARenewableCredentialASpentTokenIsReplacedOnceThenStops() {
        var policy = ConnectionMachine.Policy()
        policy.renewsCredentials = true
        var m = ConnectionMachine(policy: policy)
        _ = m.handle(.start, now: 0)
        _ = m.handle(.transportOpened(id: 1), now: 0)
        XCTAssertEqual(m.handle(.transportClosed(id: 1, .tokenSpent), now: 0.1),
                       [.renewCredential(after: .tokenSpent), .connect(id: 2, resumeWith: nil)])
        _ = m.handle(.transportOpened(id: 2), now: 0.2)
        // The new token is refused too: no loop.
        XCTAssertEqual(m.handle(.transportClosed(id: 2, .tokenSpent), now: 0.3), [.fail(.tokenSpent)])
    }

    func testRenewalIsAllowedAgainOnceAConnectionWentLive() {
        var policy = ConnectionMachine.Policy()
        policy.renewsCredentials = true
        var m = ConnectionMachine(policy: policy)
        _ = m.handle(.start, now: 0)
        _ = m.handle(.transportOpened(id: 1), now: 0)
        _ = m.handle(.transportClosed(id: 1, .tokenExpired), now: 0.1)
        _ = m.handle(.transportOpened(id: 2), now: 0.2)
        XCTAssertEqual(m.handle(.setupComplete(id: 2), now: 0.3), [.live(id: 2, resumed: false)])
        _ = m.handle(.resumptionHandle(Secret("h")), now: 1)
        XCTAssertEqual(m.handle(.transportClosed(id: 2, .tokenExpired), now: 50),
                       [.renewCredential(after: .tokenExpired), .connect(id: 3, resumeWith: Secret("h"))])
    }
}
