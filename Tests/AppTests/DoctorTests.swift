import Foundation
import LiveSimulator
import ParleyTesting
import PulseAudio
import XCTest

@testable import App

/// `parley doctor`'s findings and `parley devices`' listing as values.
final class DoctorTests: XCTestCase {
    /// The fields of `doctor --json` these tests read.
    struct Output: Decodable {
        struct Check: Decodable { var status: String; var fix: String? }
        var ok: Bool
        var checks: [Check]
    }

    func testKeySourcesAndShapes() {
        let good = "AIza" + String(repeating: "x", count: 35)
        XCTAssertEqual(DoctorChecks.key(nil, demo: false, environment: ["GOOGLE_API_KEY": good]).detail, "from GOOGLE_API_KEY")
        XCTAssertEqual(DoctorChecks.key(nil, demo: false, environment: ["GEMINI_API_KEY": good, "GOOGLE_API_KEY": "x"]).detail, "from GEMINI_API_KEY")
        var config = Config()
        config.apiKey = .init(good)
        XCTAssertEqual(DoctorChecks.key(config, demo: false, environment: [:]).status, .ok)
        XCTAssertTrue(DoctorChecks.key(config, demo: false, environment: [:]).detail.contains("config file"))
        let pasted = DoctorChecks.key(nil, demo: false, environment: ["GEMINI_API_KEY": "\"sk-123\""])
        XCTAssertEqual(pasted.status, .warn)
        XCTAssertFalse(pasted.detail.contains("sk-123"))
        XCTAssertEqual(DoctorChecks.key(nil, demo: false, environment: [:]).status, .fail)
    }

    func testServerKindNamesPipeWireAndPulseAudio() {
        XCTAssertEqual(DoctorChecks.serverKind("PulseAudio (on PipeWire 0.3.65) 15.0.0"), "PipeWire 0.3.65 (PulseAudio server 15.0.0)")
        XCTAssertEqual(DoctorChecks.serverKind("pulseaudio 16.1"), "PulseAudio 16.1")
    }

    func testReportExitStatusAndJSON() throws {
        var report = DoctorReport(checks: [.ok("a", "b", "fine"), .skip("a", "c", "n/a"), .warn("a", "d", "hmm", fix: "do x")])
        XCTAssertEqual(report.exitCode, 0, "warnings alone are not a failure")
        XCTAssertTrue(report.text.contains("1 warning"))
        report.checks.append(.fail("n", "e", "broken", fix: "do y"))
        XCTAssertEqual(report.exitCode, 1)
        let decoded = try JSONDecoder().decode(Output.self, from: Data(report.json.utf8))
        XCTAssertFalse(decoded.ok)
        XCTAssertEqual(decoded.checks.map(\.status), ["OK", "SKIP", "WARN", "FAIL"])
        XCTAssertEqual(decoded.checks.last?.fix, "do y")
    }


    func testDevicesWithoutAMicrophoneSayHowToListMonitors() {
        let devices = AudioDevices(
            sources: [AudioDevice(name: "out.monitor", description: "Monitor of Out", isDefault: true, isMonitor: true)],
            sinks: [AudioDevice(name: "out", description: "Out", isDefault: true)], server: "pulseaudio 16.1")
        let listing = Devices.listing(devices, monitors: false)
        XCTAssertTrue(listing.contains("no microphone"), listing)
        XCTAssertTrue(listing.contains("parley devices --monitors"), listing)
        XCTAssertFalse(listing.contains("out.monitor"), listing)
        XCTAssertTrue(listing.contains("* out  — Out  (default)"), listing)
        let all = Devices.listing(devices, monitors: true)
        XCTAssertTrue(all.contains("* out.monitor"), all)
    }
}
