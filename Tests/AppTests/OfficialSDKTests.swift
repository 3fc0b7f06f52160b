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
        let sim = try SimulatorProcess(["--reply-delay", "0"])
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
}
