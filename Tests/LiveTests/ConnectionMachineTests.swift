import XCTest

@testable import Live

final class ConnectionMachineTests: XCTestCase {
    var m = ConnectionMachine()
    var now = 0.0

    @discardableResult
    func on(_ e: ConnectionMachine.Event, at t: Double? = nil) -> [ConnectionMachine.Action] {
        if let t { now = t }
        return m.handle(e, now: now)
    }

    /// Brings the machine to live on connection `id` and returns that id.
    @discardableResult
    func goLive() -> Int {
        let actions = on(.start)
        guard case .connect(let id, _)? = actions.first else { XCTFail("\(actions)"); return 0 }
        XCTAssertEqual(on(.transportOpened(id: id)), [.sendSetup(id: id, resumeWith: nil)])
        XCTAssertEqual(on(.setupComplete(id: id)), [.live(id: id, resumed: false)])
        return id
    }

    func testSetupFirstThenLive() {
        XCTAssertEqual(on(.start), [.connect(id: 1, resumeWith: nil)])
        XCTAssertEqual(m.state, .connecting(id: 1, attempt: 0))
        XCTAssertEqual(on(.transportOpened(id: 1)), [.sendSetup(id: 1, resumeWith: nil)])
        XCTAssertEqual(m.nextDeadline, 10)
        XCTAssertEqual(on(.setupComplete(id: 1), at: 0.2), [.live(id: 1, resumed: false)])
        XCTAssertEqual(m.liveID, 1)
    }

    func testSetupTimeoutIsAClearErrorAndRetries() {
        on(.start)
        on(.transportOpened(id: 1))
        XCTAssertEqual(on(.tick, at: 5), [])
        let actions = on(.tick, at: 10)
        XCTAssertEqual(actions.first, .closeTransport(id: 1, code: 1000, reason: .setupTimedOut))
        guard case .reconnecting(1, _, let reason) = actions.last else { return XCTFail("\(actions)") }
        XCTAssertTrue(reason.reason.contains("setupComplete"))
    }

    func testFatalClosesNeverRetry() {
        for code in [1007, 1008] {
            m = ConnectionMachine()
            let id = goLive()
            let reason = CloseReason(code: code, reason: "nope")
            XCTAssertEqual(on(.transportClosed(id: id, reason)), [.fail(reason)])
            XCTAssertEqual(m.state, .failed(reason))
            XCTAssertNil(m.nextDeadline)
        }
    }

    func testDropsKeepRetryingWithBackoffGrowingToTheCap() {
        m = ConnectionMachine(policy: { var p = ConnectionMachine.Policy(); p.jitter = 0; return p }())
        var id = goLive()
        var delays: [Double] = []
        for _ in 0..<9 {
            let actions = on(.transportClosed(id: id, .dropped()))
            guard case .reconnecting(_, let delay, _)? = actions.first else { return XCTFail("\(actions)") }
            delays.append(delay)
            XCTAssertTrue(m.isOffline)
            XCTAssertEqual(on(.tick, at: now + delay / 2), [])
            let connect = on(.tick, at: now + delay)
            guard case .connect(let next, _)? = connect.first else { return XCTFail("\(connect)") }
            id = next
            on(.transportOpened(id: id))
            on(.setupComplete(id: id))
            now += 1  // dies again before it is stable
        }
        XCTAssertEqual(delays, [0.1, 1, 2, 4, 8, 16, 30, 30, 30])
    }

    func testAttemptLimitWhenThePolicySetsOne() {
        m = ConnectionMachine(policy: { var p = ConnectionMachine.Policy(); p.maxAttempts = 1; return p }())
        let id = goLive()
        guard case .reconnecting? = on(.transportClosed(id: id, .dropped())).first else { return XCTFail() }
        guard case .connect(let next, _)? = on(.tick, at: 1).first else { return XCTFail() }
        guard case .fail? = on(.transportClosed(id: next, .dropped()), at: 1.1).first else { return XCTFail() }
    }

    /// Drives an outage of `seconds` (every attempt refused at once) and returns the connect action after it.
    func outage(from id: Int, seconds: Double) -> (attempts: Int, connect: [ConnectionMachine.Action]) {
        let start = now
        var actions = on(.transportClosed(id: id, .dropped("cannot reach 127.0.0.1:1")))
        var attempts = 0
        var fresh: [ConnectionMachine.Action] = []
        while true {
            guard case .reconnecting(_, let delay, _)? = actions.last else { XCTFail("\(actions)"); return (attempts, []) }
            let connect = on(.tick, at: now + delay)
            attempts += 1
            fresh += connect.filter { if case .freshSession = $0 { true } else { false } }
            guard case .connect(let next, _)? = connect.last else { XCTFail("\(connect)"); return (attempts, []) }
            if now - start >= seconds { return (attempts, fresh + connect.filter { if case .freshSession = $0 { false } else { true } }) }
            actions = on(.transportClosed(id: next, .dropped("cannot reach 127.0.0.1:1")), at: now + 0.01)
        }
    }

    func testOutagesOfTwentySecondsAndTwoMinutesResumeWithTheHandle() {
        for seconds in [20.0, 120] {
            m = ConnectionMachine()
            now = 0
            let id = goLive()
            on(.resumptionHandle(Secret("h1")), at: 1)
            let (attempts, connect) = outage(from: id, seconds: seconds)
            XCTAssertGreaterThan(attempts, 5, "more attempts than the old limit of five")
            guard case .connect(let next, let handle)? = connect.last else { return XCTFail("\(connect)") }
            XCTAssertEqual(handle, Secret("h1"), "resumes the same conversation after \(seconds) s")
            XCTAssertFalse(connect.contains { if case .freshSession = $0 { true } else { false } })
            on(.transportOpened(id: next))
            XCTAssertEqual(on(.setupComplete(id: next)), [.live(id: next, resumed: true)])
            XCTAssertFalse(m.isOffline)
        }
    }

    func testOutagePastTheHandlesLifetimeStartsAFreshSessionAndSaysSo() {
        m = ConnectionMachine()
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        let (_, connect) = outage(from: id, seconds: 2 * 3600 + 60)
        guard case .freshSession(.handleExpired(let age))? = connect.first else { return XCTFail("\(connect)") }
        XCTAssertGreaterThanOrEqual(age, 2 * 3600)
        guard case .connect(let next, nil)? = connect.last else { return XCTFail("\(connect)") }
        on(.transportOpened(id: next))
        XCTAssertEqual(on(.setupComplete(id: next)), [.live(id: next, resumed: false)])
    }

    func testRetryNowSkipsTheBackoff() {
        let id = goLive()
        guard case .reconnecting(_, let delay, _)? = on(.transportClosed(id: id, .dropped()), at: 1).first else { return XCTFail() }
        XCTAssertGreaterThan(delay, 0)
        guard case .connect? = on(.retryNow(evenIfLive: false), at: 1.01).last else { return XCTFail("\(m.state)") }
        // While live, only a suspend (evenIfLive) replaces the connection.
        m = ConnectionMachine()
        let live = goLive()
        XCTAssertEqual(on(.retryNow(evenIfLive: false)), [])
        XCTAssertEqual(on(.retryNow(evenIfLive: true)).first, .closeTransport(id: live, code: 1000, reason: .networkChanged))
    }

    func testAQueuedTurnRetriesAtOnceAndKeepsTheBackoffShort() {
        m = ConnectionMachine(policy: { var p = ConnectionMachine.Policy(); p.jitter = 0; return p }())
        var id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        var actions = on(.transportClosed(id: id, .dropped()), at: 2)
        for _ in 0..<7 {  // 50 s into the outage: the next try is 30 s away
            guard case .reconnecting(_, let d, _)? = actions.last, case .connect(let next, _)? = on(.tick, at: now + d).last else { return XCTFail() }
            id = next
            actions = on(.transportClosed(id: id, .dropped()), at: now + 0.01)
        }
        guard case .reconnecting(_, 30, _)? = actions.last else { return XCTFail("\(actions)") }
        guard case .connect(let next, Secret("h1"))? = on(.userWaiting, at: now + 1).last else { return XCTFail("retry at once") }
        guard case .reconnecting(_, let d, _)? = on(.transportClosed(id: next, .dropped()), at: now + 0.01).last else { return XCTFail() }
        XCTAssertEqual(d, 3, "while the user waits, at most 3 s between tries")
    }

    func testFirstConnectionKeepsTryingThroughANetworkFailure() {
        guard case .connect(let id, _)? = on(.start).first else { return XCTFail() }
        let (attempts, connect) = outage(from: id, seconds: 60)
        XCTAssertGreaterThan(attempts, 5)
        XCTAssertTrue(m.isOffline)
        guard case .connect? = connect.last else { return XCTFail() }
    }

    func testTransientClosesReconnectAndTimeLimitIsNotAWrongModel() {
        for reason in [CloseReason.internalError, .deadlineExpired, .timeLimit, CloseReason(code: 1001, reason: "")] {
            m = ConnectionMachine()
            let id = goLive()
            on(.resumptionHandle(Secret("h1")), at: 1)
            let actions = on(.transportClosed(id: id, reason), at: 2)
            XCTAssertFalse(actions.contains { if case .fail = $0 { true } else { false } }, "\(reason): \(actions)")
        }
    }

    func testRefusedHandleStartsAFreshSessionAtOnce() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        guard case .reconnecting(_, let d, _)? = on(.transportClosed(id: id, .dropped()), at: 2).first else { return XCTFail() }
        guard case .connect(let next, Secret("h1"))? = on(.tick, at: 2 + d).last else { return XCTFail() }
        on(.transportOpened(id: next))
        let actions = on(.transportClosed(id: next, .sessionExpired))
        XCTAssertEqual(actions, [.freshSession(.handleRefused(.sessionExpired)), .connect(id: next + 1, resumeWith: nil)])
    }

    func testRequestedEntityNotFoundResumesOnceThenStartsFresh() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        XCTAssertEqual(on(.transportClosed(id: id, .entityNotFound), at: 2), [.connect(id: id + 1, resumeWith: Secret("h1"))])
        on(.transportOpened(id: id + 1))
        XCTAssertEqual(on(.transportClosed(id: id + 1, .entityNotFound)),
                       [.freshSession(.handleRefused(.entityNotFound)), .connect(id: id + 2, resumeWith: nil)])
    }

    func testAccountClosesAreFatal() {
        for reason in [CloseReason.quotaExceeded, .resourceExhausted, .apiDisabled, .invalidAPIKey] {
            m = ConnectionMachine()
            let id = goLive()
            XCTAssertEqual(on(.transportClosed(id: id, reason)), [.fail(reason)])
        }
    }

    func testJitterStaysWithinBounds() {
        for seed in 0..<50 {
            m = ConnectionMachine(seed: UInt64(seed))
            let id = goLive()
            guard case .reconnecting(_, let delay, _)? = on(.transportClosed(id: id, .dropped())).first else { return XCTFail() }
            XCTAssertGreaterThanOrEqual(delay, 0.08)
            XCTAssertLessThanOrEqual(delay, 0.12)
        }
    }

    func testStableConnectionResetsAttempts() {
        m = ConnectionMachine(policy: { var p = ConnectionMachine.Policy(); p.jitter = 0; return p }())
        var id = goLive()
        for _ in 0..<3 {
            guard case .reconnecting(_, let d, _)? = on(.transportClosed(id: id, .dropped())).first else { return XCTFail() }
            guard case .connect(let next, _)? = on(.tick, at: now + d).first else { return XCTFail() }
            id = next
            on(.transportOpened(id: id))
            on(.setupComplete(id: id))
        }
        now += 11  // stable for more than 10 s
        guard case .reconnecting(1, let delay, _)? = on(.transportClosed(id: id, .dropped())).first else { return XCTFail() }
        XCTAssertEqual(delay, 0.1)
    }

    func testDropResumesWithAFreshHandleButNotAnOldOne() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        guard case .reconnecting(_, let d, _)? = on(.transportClosed(id: id, .dropped()), at: 2).first else { return XCTFail() }
        guard case .connect(let next, let handle)? = on(.tick, at: 2 + d).first else { return XCTFail() }
        XCTAssertEqual(handle?.revealed, "h1")
        on(.transportOpened(id: next))
        XCTAssertEqual(on(.setupComplete(id: next)), [.live(id: next, resumed: true)])
        // Two hours later the handle is too old to use.
        now += 2 * 3600
        guard case .reconnecting(_, let d2, _)? = on(.transportClosed(id: next, .dropped())).first else { return XCTFail() }
        let actions = on(.tick, at: now + d2)
        guard case .freshSession(.handleExpired)? = actions.first, case .connect(_, let stale)? = actions.last else { return XCTFail("\(actions)") }
        XCTAssertNil(stale)
    }

    func testGoAwayHandsOverAtTheNextTurnBoundary() {
        let id = goLive()
        on(.turnStarted, at: 1)
        XCTAssertEqual(on(.goAway(id: id, timeLeft: 10), at: 2), [], "mid-turn: wait")
        XCTAssertEqual(m.nextDeadline, 11)
        XCTAssertEqual(on(.turnEnded, at: 3), [], "the handle from before the turn would lose it: wait for the new one")
        let actions = on(.resumptionHandle(Secret("h2")), at: 3.1)
        XCTAssertEqual(actions, [.closeTransport(id: id, code: 1000, reason: .handover), .connect(id: id + 1, resumeWith: Secret("h2"))])
        // The old connection's close arrives afterwards and changes nothing.
        XCTAssertEqual(on(.transportClosed(id: id, CloseReason(code: 1000, reason: ""))), [])
        on(.transportOpened(id: id + 1))
        XCTAssertEqual(on(.setupComplete(id: id + 1)), [.live(id: id + 1, resumed: true)])
    }

    func testGoAwayHandsOverBeforeTimeLeftRunsOutWhenNoBoundaryComes() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 0.5)
        on(.turnStarted, at: 1)
        on(.goAway(id: id, timeLeft: 5), at: 2)
        XCTAssertEqual(on(.tick, at: 5.5), [])
        let actions = on(.tick, at: 6)  // 2 + 5 − 1 s margin
        XCTAssertEqual(actions.first, .closeTransport(id: id, code: 1000, reason: .handover))
        XCTAssertEqual(actions.last, .connect(id: id + 1, resumeWith: Secret("h1")))
    }

    func testGoAwayWhileIdleWithAFreshHandleHandsOverAtOnce() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        XCTAssertEqual(on(.goAway(id: id, timeLeft: 30), at: 2).last, .connect(id: id + 1, resumeWith: Secret("h1")))
    }

    func testServerCloseAfterGoAwayReconnectsAtOnce() {
        let id = goLive()
        on(.resumptionHandle(Secret("h1")), at: 1)
        on(.turnStarted, at: 1.5)
        on(.goAway(id: id, timeLeft: 3), at: 2)
        XCTAssertEqual(on(.transportClosed(id: id, CloseReason(code: 1000, reason: "")), at: 2.2), [.connect(id: id + 1, resumeWith: Secret("h1"))])
    }

    func testRequestedHandoverWaitsForTheTurnAndItsHandle() {
        let id = goLive()
        on(.turnStarted, at: 1)
        XCTAssertEqual(on(.handoverRequested(requireHandle: true), at: 1.5), [])
        XCTAssertTrue(m.handoverPending)
        on(.turnEnded, at: 2)
        XCTAssertEqual(on(.resumptionHandle(Secret("h9")), at: 2.1).last, .connect(id: id + 1, resumeWith: Secret("h9")))
    }

    func testRequestedHandoverWithoutAnyHandleStartsANewSession() {
        let id = goLive()
        XCTAssertEqual(on(.handoverRequested(requireHandle: false), at: 1).last, .connect(id: id + 1, resumeWith: nil))
    }

    func testStopClosesAndIgnoresLateEvents() {
        let id = goLive()
        XCTAssertEqual(on(.stop), [.closeTransport(id: id, code: 1000, reason: .clientClosed)])
        XCTAssertEqual(on(.transportClosed(id: id, .dropped())), [])
        XCTAssertEqual(m.state, .closed)
    }

    func testAskPolicyDoesNotReconnect() {
        m = ConnectionMachine(policy: { var p = ConnectionMachine.Policy(); p.reconnects = false; return p }())
        let id = goLive()
        XCTAssertEqual(on(.transportClosed(id: id, .dropped("gone"))), [.fail(.dropped("gone"))])
    }
}
