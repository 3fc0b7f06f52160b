import Foundation
import ParleyTime
import XCTest
@testable import PulseAudio

final class EchoCancelModeTests: XCTestCase {
    func testSettingsOldAndNew() {
        XCTAssertEqual(EchoCancelMode(setting: "auto"), .auto)
        XCTAssertEqual(EchoCancelMode(setting: "WebRTC"), .webrtc)
        XCTAssertEqual(EchoCancelMode(setting: "true"), .pulse, "the old boolean loaded PulseAudio's module")
        XCTAssertEqual(EchoCancelMode(legacy: false), .gate)
        XCTAssertNil(EchoCancelMode(setting: "loud"))
    }

    func testProtectionPerModeAndFallbacks() {
        XCTAssertEqual(EchoCancelMode.auto.protection(openMic: true, hasCanceller: true, moduleMethod: nil), .canceller)
        XCTAssertEqual(EchoCancelMode.auto.protection(openMic: false, hasCanceller: true, moduleMethod: nil), .none)
        XCTAssertEqual(EchoCancelMode.auto.protection(openMic: true, hasCanceller: false, moduleMethod: nil), .halfDuplex,
                       "no library: the gate")
        XCTAssertEqual(EchoCancelMode.webrtc.protection(openMic: false, hasCanceller: true, moduleMethod: nil), .canceller)
        XCTAssertEqual(EchoCancelMode.pulse.protection(openMic: true, hasCanceller: false, moduleMethod: "webrtc"),
                       .echoCancellation(method: "webrtc"))
        XCTAssertEqual(EchoCancelMode.pulse.protection(openMic: true, hasCanceller: false, moduleMethod: nil), .halfDuplex)
        XCTAssertEqual(EchoCancelMode.gate.protection(openMic: true, hasCanceller: true, moduleMethod: nil), .halfDuplex)
        XCTAssertEqual(EchoCancelMode.off.protection(openMic: true, hasCanceller: true, moduleMethod: nil), .none)
        XCTAssertTrue(EchoCancelMode.auto.cancellerActive(openMic: true))
        XCTAssertFalse(EchoCancelMode.auto.cancellerActive(openMic: false))
        XCTAssertTrue(HalfDuplexGate.Protection.canceller.description.contains("full duplex"))
    }
}
