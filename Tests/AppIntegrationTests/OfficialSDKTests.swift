import AuthTesting
import Foundation
import ParleyTesting
import XCTest

/// Google's own Python SDK (google-genai) as a second client of `parley simulate` on loopback: setup, a text
/// turn, a tool call and its response, audio out, turn complete. The SDK lives in a venv under the build
/// directory (scripts/sdk-venv.sh, which scripts/test.sh runs first); the test skips, saying why, only when pip
/// cannot install it.
final class OfficialSDKTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func sdkPython() throws -> String {
        if let p = ProcessInfo.processInfo.environment["PARLEY_SDK_PYTHON"], !p.isEmpty { return p }
        let made = try shell([Self.root + "/scripts/sdk-venv.sh", Self.root + "/.build/sdk-venv"], timeout: 600)
        guard made.status == 0 else {
            let reason = made.err.trimmingCharacters(in: .whitespacesAndNewlines)
            print("OfficialSDKTests skipped: \(reason)")
            throw XCTSkip(reason)
        }
        return made.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testGoogleGenAISDKTalksToTheSimulator() throws {
        let python = try sdkPython()
        let sim = try SimulatorProcess(["--reply-delay", "0", "--turn-complete-at-once"])
        defer { sim.stop() }
        let port = sim.port
        let run = try shell([python, Self.root + "/Tests/SDK/sdk_client.py", "ws://127.0.0.1:\(port)"], timeout: 120)
        XCTAssertEqual(run.status, 0, "stdout: \(run.out)\nstderr: \(run.err)")
        let seen = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        XCTAssertEqual(seen?["setup"] as? Bool, true)
        XCTAssertGreaterThan(seen?["audio_bytes"] as? Int ?? 0, 0, "audio out")
        XCTAssertEqual(seen?["turn_completes"] as? Int, 2)
        XCTAssertEqual(seen?["tool_calls"] as? [String], ["get_current_time"])
        XCTAssertEqual(seen?["replies"] as? [String], [
            "Hello! Yes, I can hear you clearly. That's turn 1 of our chat.",
            "It's 10:42 right now. That's turn 2 of our chat.",
        ])
    }

    /// Vertex AI mode: google-auth reads a test service-account file (GOOGLE_APPLICATION_CREDENTIALS) whose
    /// token_uri is a loopback token endpoint that verifies the signed JWT; the SDK then dials the Vertex path
    /// with the bearer token and the `projects/…/publishers/google/models/…` name, which `parley simulate` checks.
    func testGoogleGenAISDKInVertexModeCompletesATurn() async throws {
        let python = try sdkPython()
        let google = try LoopbackGoogle()
        try await google.start()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sdk-vertex-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let keyFile = dir + "/key.json"
        try google.serviceAccountJSON().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let sim = try SimulatorProcess(["--reply-delay", "0", "--turn-complete-at-once", "--access-token-prefix", "ya29.loopback-"])
        var environment = ProcessInfo.processInfo.environment
        environment["GOOGLE_APPLICATION_CREDENTIALS"] = keyFile
        environment["GOOGLE_CLOUD_PROJECT"] = nil
        let run = try shell([python, Self.root + "/Tests/SDK/sdk_vertex_client.py", sim.url, "loopback-project", "us-central1"],
                            env: environment, timeout: 120)
        sim.stop()
        await google.stop()
        try? FileManager.default.removeItem(atPath: dir)
        XCTAssertEqual(run.status, 0, "stdout: \(run.out)\nstderr: \(run.err)")
        let seen = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        XCTAssertEqual(seen?["setup"] as? Bool, true)
        XCTAssertEqual(seen?["turn_completes"] as? Int, 1)
        XCTAssertGreaterThan(seen?["audio_bytes"] as? Int ?? 0, 0)
        XCTAssertEqual(google.grants, ["jwt-bearer"], "the SDK's JWT was verified and exchanged once")
        XCTAssertEqual(google.refusals, [])
    }
}
