import XCTest

@testable import Live

final class CloseTableTests: XCTestCase {
    func testTheServiceTextsTheSimulatorSendsClassifyAsIntended() {
        for (reason, kind) in CloseReason.serviceExamples {
            XCTAssertEqual(reason.kind, kind, "\(reason.codeAndReason)")
        }
    }

    func testFieldCloses() {
        func kind(_ code: Int, _ reason: String) -> CloseClass { CloseReason(code: code, reason: reason).kind }
        XCTAssertEqual(kind(1011, "Internal error occurred"), .transient)
        XCTAssertEqual(kind(1008, ""), .transient, "the connection time limit, not a wrong model")
        XCTAssertEqual(kind(1006, "cannot reach host: connection refused"), .transient)
        XCTAssertEqual(kind(1000, ""), .transient)
        XCTAssertEqual(kind(1008, "BidiGenerateContent session not found: Cgx0aGUgc2Vzc2lvbg"), .refusedHandle(resumeOnceFirst: false))
        XCTAssertEqual(kind(1007, "API Key not found. Please pass a valid API key."), .fatalKey)
        XCTAssertEqual(kind(1007, "realtime_input.media_chunks is deprecated. Use audio, video, or text instead."), .fatalRequest)
        XCTAssertEqual(kind(1008, "Publisher Model `projects/x/locations/us/publishers/google/models/y` was not found or your pro"), .fatalRequest)
        XCTAssertEqual(kind(1008, "Operation is not implemented, or supported, or enabled."), .fatalRequest)
        XCTAssertEqual(kind(1008, "Your project has been denied access. Please contact support."), .fatalAccount)
        XCTAssertEqual(kind(1011, "You exceeded your current quota, please check your plan and billing det"), .fatalAccount)
        XCTAssertEqual(kind(1011, "Your project has exceeded its monthly spending cap"), .fatalAccount)
        XCTAssertFalse(CloseReason.quotaExceeded.description.contains("internal error"), "a quota close is not called an internal error")
        XCTAssertTrue(CloseReason.quotaExceeded.hint.contains("will not retry"))
        XCTAssertFalse(CloseReason.timeLimit.description.contains("model name"))
    }

    func testReasonsAreSanitisedAndShownWithTheCode() {
        let r = CloseReason(code: 1011, reason: "Internal\u{1B}[2J error\nhere\u{202E}")
        XCTAssertFalse(r.reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        XCTAssertTrue(r.description.hasPrefix("closed with code 1011 \"Internal␛[2J error␊here\u{FFFD}\""), r.description)
    }

    func testNetworkWatchNoticesSuspendAndRouteChanges() {
        var w = NetworkWatch()
        XCTAssertNil(w.observe(now: 10, throughSuspend: 1000, route: "wlan0 0100A8C0"))
        XCTAssertNil(w.observe(now: 12, throughSuspend: 1002, route: "wlan0 0100A8C0"))
        XCTAssertEqual(w.observe(now: 14, throughSuspend: 1064, route: "wlan0 0100A8C0"), .resumedFromSuspend(seconds: 60))
        XCTAssertEqual(w.observe(now: 16, throughSuspend: 1066, route: "eth0 0101A8C0"), .routeChanged)
        XCTAssertNil(w.observe(now: 18, throughSuspend: 1068, route: nil), "losing the route is not a reason to retry")
        let table = "Iface\tDestination\tGateway \tFlags\nwlan0\t00000000\t0100A8C0\t0003\nwlan0\t0000A8C0\t00000000\t0001\n"
        XCTAssertEqual(NetworkWatch.defaultRoute(table: table), "wlan0 0100A8C0")
    }

    func testConversationLogSeedsAFreshSession() {
        var log = ConversationLog(limit: 60)
        log.appendTurn(role: "user", "what is the capital")
        log.append(role: "model", " Paris")
        log.append(role: "model", " is the capital.")
        XCTAssertEqual(log.contents, [Content(role: "user", text: "what is the capital"), Content(role: "model", text: "Paris is the capital.")])
        log.appendTurn(role: "user", "and of Spain, please tell me")
        XCTAssertEqual(log.contents.first?.role, "model", "the oldest turn goes first when over the limit")
    }
}
