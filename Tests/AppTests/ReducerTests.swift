@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

final class ReducerTests: XCTestCase {
    var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)
    var now = 0.0

    @discardableResult
    func on(_ e: AppEvent, at t: Double? = nil) -> [Effect] {
        if let t { now = t }
        return Reducer.reduce(&s, e, now: now)
    }

    @discardableResult
    func key(_ k: KeyEvent, at t: Double? = nil) -> [Effect] { on(.input(.key(k)), at: t) }

    func live() { on(.live(.setupComplete(resumed: false))) }

    var space: KeyEvent { KeyEvent(.character(" ")) }

    /// The push-to-talk effects, by name: "start" (activityStart then the gate), "stop" (the gate closes).
    func talkEffects(_ fx: [Effect]) -> [String] {
        fx.compactMap { e in
            switch e {
            case .mic(.open): "open"
            case .mic(.close): "close"
            case .live(.activityStart): "activityStart"
            case .live(.activityEnd): "activityEnd"
            case .live(.audioStreamEnd): "audioStreamEnd"
            default: nil
            }
        }
    }
    let start = ["activityStart", "open"]
    let stop = ["close"]

    /// The id of the gate close in these effects.
    func closeID(_ fx: [Effect]) -> Int? {
        for e in fx { if case .mic(.close(let id)) = e { return id } }
        return nil
    }

    var lines: [(Speaker, String)] { s.ui.transcript.entries.map { ($0.speaker, $0.text + $0.interim) } }

    // MARK: push-to-talk

    func testTapTogglesTalkingInALegacyTerminal() {
        live()
        XCTAssertEqual(talkEffects(key(space, at: 1)), start)
        XCTAssertTrue(s.micOpen)
        XCTAssertTrue(s.ui.meters.talking)
        XCTAssertEqual(talkEffects(on(.tick, at: 2)), [], "no repeats: it was a tap, talking stays on")
        XCTAssertTrue(s.micOpen)
        XCTAssertEqual(talkEffects(key(space, at: 4)), stop)
        XCTAssertFalse(s.micOpen)
        XCTAssertEqual(s.latency.current?.endOfSpeech, 4)
    }

    func testHeldSpaceReleaseIsInferredFromAutoRepeat() {
        live()
        XCTAssertEqual(talkEffects(key(space, at: 1)), start)
        for t in stride(from: 1.5, through: 3.0, by: 0.033) { XCTAssertEqual(talkEffects(key(space, at: t)), []) }
        XCTAssertTrue(s.micOpen)
        XCTAssertEqual(talkEffects(on(.tick, at: 3.3)), stop, "repeats stopped: released")
        XCTAssertFalse(s.micOpen)
    }

    func testKittyReportsTrueRelease() {
        live()
        on(.input(.kittyFlags(11)))
        XCTAssertEqual(s.ui.header.pushToTalk, .kittyHold)
        XCTAssertEqual(talkEffects(key(space, at: 1)), start)
        XCTAssertEqual(talkEffects(key(KeyEvent(.character(" "), kind: .repeat), at: 1.5)), [])
        XCTAssertEqual(talkEffects(key(KeyEvent(.character(" "), kind: .release), at: 2)), stop)
    }

    func testTalkingWithoutAudioPointsAtTyping() {
        s = AppState(config: Config(), demo: false, audioAvailable: false, kitty: false)
        live()
        XCTAssertEqual(talkEffects(key(space, at: 1)), [])
        XCTAssertFalse(s.micOpen)
        XCTAssertTrue(s.ui.status?.contains("Tab") == true)
    }

    // MARK: transcripts

    func testTranscriptsStreamThenFinishOnTurnComplete() {
        live()
        on(.live(.inputTranscription("What is ", finished: false)))
        on(.live(.inputTranscription("the time?", finished: false)))
        XCTAssertEqual(s.ui.transcript.entries.last?.interim, "What is the time?")
        on(.live(.outputTranscription("It is ", finished: false)))
        XCTAssertEqual(s.ui.transcript.entries.first { $0.speaker == .user }?.text, "What is the time?", "user turn finished when the model starts")
        on(.live(.outputTranscription("noon.", finished: false)))
        XCTAssertTrue(s.modelResponding)
        let fx = on(.live(.turnComplete(reason: nil)))
        XCTAssertFalse(s.modelResponding)
        let model = s.ui.transcript.entries.last
        XCTAssertEqual(model?.speaker, .model)
        XCTAssertEqual(model?.text, "It is noon.")
        XCTAssertEqual(model?.interim, "")
        XCTAssertTrue(fx.contains(.record(.line(speaker: .model, text: "It is noon.", interrupted: false))))
    }

    func testBargeInMarksTheCut() {
        live()
        on(.live(.outputTranscription("Once upon a time", finished: false)))
        let fx = on(.live(.interrupted))
        XCTAssertEqual(s.ui.transcript.entries.last?.interrupted, true)
        XCTAssertFalse(s.modelResponding)
        XCTAssertTrue(fx.contains(.record(.line(speaker: .model, text: "Once upon a time", interrupted: true))))
        on(.live(.turnComplete(reason: nil)))
        XCTAssertEqual(s.ui.transcript.entries.filter { $0.speaker == .model }.count, 1)
    }

    func testTypedMessageIsSentAndShown() {
        live()
        XCTAssertEqual(key(KeyEvent(.tab)), [])
        XCTAssertNotNil(s.ui.input)
        for c in "héllo 世界" { key(.char(c)) }
        let fx = key(KeyEvent(.enter), at: 3)
        XCTAssertTrue(fx.contains(.live(.sendText("héllo 世界"))))
        XCTAssertEqual(lines.last?.1, "héllo 世界")
        XCTAssertEqual(s.latency.current?.endOfSpeech, 3)
        // The server's transcription of a typed turn is not shown a second time.
        on(.live(.inputTranscription("héllo 世界", finished: true)))
        on(.live(.outputTranscription("hi", finished: false)))
        XCTAssertEqual(s.ui.transcript.entries.filter { $0.speaker == .user }.count, 1)
        key(KeyEvent(.escape))
        XCTAssertNil(s.ui.input)
        XCTAssertEqual(key(.char("q")), [.record(.line(speaker: .model, text: "hi", interrupted: true)), .quit],
                       "q quits once the input line is closed, saving the reply in progress")
    }

    func testLatencyIsEndOfSpeechToFirstReplyAudio() {
        live()
        key(space, at: 1)
        key(space, at: 3)
        on(.replyAudioStarted(at: 3.42))
        XCTAssertEqual(s.ui.header.latencyMs, 420)
    }

    // MARK: Ctrl-C and quitting

    func testCtrlCInterruptsAReplyThenQuits() {
        live()
        on(.live(.outputTranscription("a long answer", finished: false)))
        XCTAssertEqual(key(.ctrl("c")), [.speaker(.cutReply)])
        XCTAssertEqual(s.ui.transcript.entries.last?.interrupted, true)
        XCTAssertFalse(s.quitting)
        XCTAssertEqual(key(.ctrl("c")), [.record(.line(speaker: .model, text: "a long answer", interrupted: true)), .quit])
        XCTAssertTrue(s.quitting)
    }

    func testTheInterruptedReplyNoteLastsUntilTheTurnEnds() {
        live()
        on(.live(.outputTranscription("a long answer", finished: false)))
        key(.ctrl("c"))
        XCTAssertEqual(s.status, .replyInterrupted)
        XCTAssertEqual(s.ui.status, "reply interrupted — Ctrl-C again to quit", "the status line shows the note's text")
        on(.live(.turnComplete(reason: nil)))
        XCTAssertNil(s.status)
        XCTAssertNil(s.ui.status)
    }

    func testSuspendingClosesTheMic() {
        live()
        key(space, at: 1)
        XCTAssertEqual(talkEffects(on(.suspending)), ["close", "activityEnd"], "the follow-up goes out before the process stops")
        XCTAssertFalse(s.micOpen)
        XCTAssertFalse(s.talk.gesture.isTalking)
    }

    func testQuitWhileTalkingReleasesTheMicFirst() {
        live()
        key(space, at: 1)
        let fx = on(.quitRequested)
        XCTAssertEqual(talkEffects(fx), ["close", "activityEnd"])
        XCTAssertEqual(fx.last, .quit)
    }

    // MARK: voice switch

    func testVoiceMenuChooseSwitchesWithResumption() {
        live()
        key(.char("v"))
        guard case .voiceMenu? = s.ui.overlay else { return XCTFail("menu not open") }
        for c in "kor" { key(.char(c)) }
        let fx = key(KeyEvent(.enter))
        XCTAssertNil(s.ui.overlay)
        XCTAssertTrue(fx.contains(.live(.switchVoice("Kore", duringReply: false))), "\(fx)")
        XCTAssertEqual(s.pendingVoice, "Kore")
        XCTAssertEqual(s.ui.header.voice, "Puck", "the header changes when the new voice is live")
        on(.live(.connecting(attempt: 0, resuming: true)))
        on(.live(.setupComplete(resumed: true)))
        XCTAssertEqual(s.ui.header.voice, "Kore")
        XCTAssertEqual(s.voice, "Kore")
        XCTAssertTrue(lines.last?.1.contains("voice changed to Kore — the conversation continues") == true)
    }

    func testVoiceSwitchWithoutHandleSeedsANewSession() {
        live()
        key(.char("v"))
        key(KeyEvent(.down))
        let fx = key(KeyEvent(.enter))
        guard case .live(.switchVoice(let name, _))? = fx.first(where: { if case .live(.switchVoice) = $0 { true } else { false } }) else { return XCTFail("\(fx)") }
        on(.live(.setupComplete(resumed: false)))
        XCTAssertEqual(s.ui.header.voice, name)
        XCTAssertTrue(lines.last?.1.contains("new session, seeded with the transcript") == true)
    }

    func testVoiceSwitchMidReplySaysItWaits() {
        live()
        on(.live(.outputTranscription("talking", finished: false)))
        key(.char("v"))
        key(.char("c"))
        key(.char("h"))
        key(.char("a"))
        let fx = key(KeyEvent(.enter))
        XCTAssertTrue(fx.contains(.live(.switchVoice("Charon", duringReply: true))), "\(fx)")
        XCTAssertTrue(s.ui.transcript.entries.contains { $0.text.contains("switching to Charon when this reply ends") })
    }

    func testEscClosesTheMenuWithoutSwitching() {
        live()
        key(.char("v"))
        XCTAssertEqual(key(KeyEvent(.escape)), [])
        XCTAssertNil(s.ui.overlay)
        XCTAssertNil(s.pendingVoice)
    }

    // MARK: connection

    func testOfflineQueuesTypedTurnsAndPausesPushToTalk() {
        live()
        on(.live(.reconnecting(attempt: 1, delay: 4, after: .dropped())), at: 10)
        XCTAssertEqual(talkEffects(key(space, at: 10.5)), [], "nothing to talk to")
        XCTAssertTrue(s.ui.status?.contains("offline") == true)
        let queued = on(.live(.textQueued(id: 1, text: "are you back", waiting: 1)), at: 11)
        XCTAssertTrue(queued.contains(.record(.queued(id: 1, text: "are you back"))))
        XCTAssertTrue(s.ui.transcript.entries.last?.text.contains("queued") == true)
        on(.live(.setupComplete(resumed: true)), at: 20)
        XCTAssertEqual(on(.live(.queuedTextSent(ids: [1])), at: 20), [.record(.sent(id: 1))])
        XCTAssertEqual(talkEffects(key(space, at: 21)), start, "back online")
    }

    func testReconnectShowsCountdownThenResumes() {
        live()
        on(.live(.connectionClosed(.dropped())), at: 10)
        on(.live(.reconnecting(attempt: 1, delay: 1.0, after: .dropped())), at: 10)
        XCTAssertEqual(s.ui.header.connection, .offlineRetrying(inSeconds: 1))
        XCTAssertEqual(s.ui.transcript.entries.last?.speaker, .error)
        XCTAssertTrue(s.ui.transcript.entries.last?.text.contains("code 1006") == true)
        XCTAssertEqual(HeaderView.render(s.ui.header, width: 120).first.map { $0.text.contains("offline — retrying in 1 s (r: now)") }, true)
        XCTAssertEqual(key(.char("r")), [.live(.retryNow)])
        on(.live(.connecting(attempt: 2, resuming: true)), at: 11)
        let fx = on(.live(.setupComplete(resumed: true)), at: 11.1)
        XCTAssertEqual(s.ui.header.connection, .live)
        XCTAssertTrue(lines.last?.1.contains("reconnected — conversation resumed") == true)
        XCTAssertTrue(fx.contains(.record(.reconnect(resumed: true))))
    }

    func testARetryingAttemptIsOfflineAsTheHeaderSays() {
        live()
        on(.live(.connectionClosed(.dropped())), at: 10)
        XCTAssertFalse(s.connected)
        on(.live(.reconnecting(attempt: 1, delay: 2, after: .dropped())), at: 10)
        on(.tick, at: 11.2)
        XCTAssertEqual(s.ui.header.connection, .offlineRetrying(inSeconds: 1), "the countdown is computed from the link each pass")
        on(.live(.connecting(attempt: 1, resuming: true)), at: 12)
        XCTAssertEqual(s.ui.header.connection, .offlineRetrying(inSeconds: nil))
        XCTAssertTrue(s.offline, "an attempt after a failed one is offline, as the header shows")
        XCTAssertEqual(key(.char("r"), at: 12.5), [.live(.retryNow)])
        on(.live(.setupComplete(resumed: true)), at: 13)
        XCTAssertFalse(s.offline)
        on(.live(.closed), at: 14)
        XCTAssertFalse(s.connected)
        XCTAssertEqual(s.ui.header.connection, .offline, "closed for good")
    }

    func testFatalCloseShowsReasonAndCodeAndStopsTheMic() {
        live()
        key(space, at: 1)
        let reason = CloseReason(code: 1007, reason: "API key not valid. Please pass a valid API key.")
        let fx = on(.live(.failed(reason)))
        XCTAssertEqual(talkEffects(fx), stop)
        XCTAssertEqual(s.ui.header.connection, .failed(reason: "code 1007 \"API key not valid. Please pass a valid API key.\""))
        XCTAssertTrue(lines.last?.1.contains("1007") == true)
        XCTAssertTrue(lines.last?.1.contains("GEMINI_API_KEY") == true)
    }

    func testGoAwayCountsDown() {
        live()
        on(.live(.goAway(timeLeft: .seconds(50))), at: 100)
        XCTAssertEqual(s.ui.header.goAwaySeconds, 50)
        on(.tick, at: 120)
        XCTAssertEqual(s.ui.header.goAwaySeconds, 30)
        on(.live(.setupComplete(resumed: true)), at: 121)
        XCTAssertNil(s.ui.header.goAwaySeconds)
    }

    func testOpenMicModeSwitchOpensTheMicWhenLive() {
        live()
        let fx = key(.char("m"))
        XCTAssertTrue(fx.contains(.live(.switchMode(.open, duringReply: false))))
        let done = on(.live(.setupComplete(resumed: true)))
        XCTAssertEqual(s.mode, .open)
        XCTAssertEqual(s.ui.header.pushToTalk, .openMic)
        XCTAssertTrue(done.contains(.mic(.open(openMic: true))))
        let mute = key(space, at: 2)
        XCTAssertEqual(talkEffects(mute), stop, "Space mutes in open mic")
        XCTAssertTrue(s.ui.meters.micMuted)
        XCTAssertEqual(talkEffects(on(.micClosed(id: closeID(mute) ?? -1))), ["audioStreamEnd"], "after the last chunk")
        XCTAssertTrue(s.ui.meters.micMuted, "still muted once closed")
        on(.live(.connectionClosed(.dropped())))
        XCTAssertEqual(talkEffects(on(.live(.setupComplete(resumed: true)))), [], "muted stays muted across a reconnect")
        XCTAssertEqual(talkEffects(key(space, at: 3)), ["open"], "Space unmutes")
    }

    // MARK: tools

    func testToolCallLifecycle() {
        live()
        let fx = on(.live(.toolCall([FunctionCall(id: "c1", name: "get_current_time"), FunctionCall(id: "c2", name: "read_file", args: ["path": "/x"])])), at: 5)
        XCTAssertEqual(fx.first, .runTools([FunctionCall(id: "c1", name: "get_current_time"), FunctionCall(id: "c2", name: "read_file", args: ["path": "/x"])]))
        XCTAssertEqual(s.ui.toolLog.calls.map(\.state), [.running, .running])
        on(.toolFinished(id: "c1", outcome: .ok, result: #"{"local":"noon"}"#), at: 5.25)
        XCTAssertEqual(s.ui.toolLog.calls[0].state, .ok)
        XCTAssertEqual(s.ui.toolLog.calls[0].duration ?? 0, 0.25, accuracy: 1e-9)
        let cancel = on(.live(.toolCallCancellation(ids: ["c2"])), at: 6)
        XCTAssertEqual(s.ui.toolLog.calls[1].state, .cancelled)
        XCTAssertTrue(cancel.contains(.cancelTools(["c2"])))
        on(.toolFinished(id: "c2", outcome: .ok, result: "late"), at: 7)
        XCTAssertEqual(s.ui.toolLog.calls[1].state, .cancelled, "a cancelled call stays cancelled")
    }

    func testShellCommandsAskFirstAndDefaultToNo() {
        live()
        on(.live(.toolCall([FunctionCall(id: "s1", name: "run_shell_command", args: ["command": "ls -la ~"]),
                            FunctionCall(id: "s2", name: "run_shell_command", args: ["command": "rm -rf /tmp/x"])])))
        on(.confirmTool(id: "s1", name: "run_shell_command", detail: "ls -la ~"))
        on(.confirmTool(id: "s2", name: "run_shell_command", detail: "rm -rf /tmp/x"))
        guard case .confirm(let first)? = s.ui.overlay else { return XCTFail("no popup") }
        XCTAssertEqual(first.detail, "ls -la ~", "the exact command, one at a time")
        XCTAssertEqual(s.ui.toolLog.calls.map(\.state), [.pending, .pending])
        XCTAssertEqual(key(.char("y"), at: 2), [.answerConfirmation(id: "s1", yes: true)])
        XCTAssertEqual(s.ui.toolLog.calls[0].state, .running)
        guard case .confirm(let second)? = s.ui.overlay else { return XCTFail("the second popup follows") }
        XCTAssertEqual(second.detail, "rm -rf /tmp/x")
        XCTAssertEqual(key(KeyEvent(.enter)), [.answerConfirmation(id: "s2", yes: false)], "Enter is no")
        XCTAssertNil(s.ui.overlay)
        on(.toolFinished(id: "s2", outcome: .denied, result: "declined"))
        XCTAssertEqual(s.ui.toolLog.calls[1].state, .denied)
    }

    func testAReplyInProgressIsSavedWhenTheUserQuits() {
        live()
        on(.live(.outputTranscription("Half a rep", finished: false)))
        let fx = on(.quitRequested)
        XCTAssertEqual(fx.first, .record(.line(speaker: .model, text: "Half a rep", interrupted: true)))
        XCTAssertEqual(fx.last, .quit)
    }

    func testCtrlCInAPopupDeniesEveryWaitingCallAndQuits() {
        live()
        let calls = (1...1000).map { FunctionCall(id: "s\($0)", name: "run_shell_command", args: ["command": .string("echo \($0)")]) }
        on(.live(.toolCall(calls)))
        for c in calls { on(.confirmTool(id: c.id, name: c.name, detail: "echo")) }
        guard case .confirm(let shown)? = s.ui.overlay else { return XCTFail("no popup") }
        XCTAssertEqual(shown.queued, 999)
        let fx = key(.ctrl("c"))
        XCTAssertEqual(fx.filter { if case .answerConfirmation(_, false) = $0 { true } else { false } }.count, 1000)
        XCTAssertTrue(fx.contains(.quit))
        XCTAssertTrue(s.quitting)
        XCTAssertNil(s.ui.overlay)
    }

    func testACancelledCallTakesItsPopupAway() {
        live()
        on(.live(.toolCall([FunctionCall(id: "s1", name: "run_shell_command", args: ["command": "sleep 100"])])))
        on(.confirmTool(id: "s1", name: "run_shell_command", detail: "sleep 100"))
        XCTAssertNotNil(s.ui.overlay)
        let fx = on(.live(.toolCallCancellation(ids: ["s1"])))
        XCTAssertNil(s.ui.overlay)
        XCTAssertTrue(fx.contains(.cancelTools(["s1"])))
        XCTAssertEqual(s.ui.toolLog.calls[0].state, .cancelled)
    }

    func testScrollKeysScroll() {
        XCTAssertEqual(key(KeyEvent(.pageUp)), [.scroll(.pageUp)])
        XCTAssertEqual(key(KeyEvent(.end)), [.scroll(.bottom)])
    }

    // MARK: one owner per fact

    func testReleaseSendsActivityEndOnlyAfterTheLastChunk() {
        live()
        key(space, at: 1)
        let fx = key(space, at: 2)
        XCTAssertEqual(talkEffects(fx), stop, "the gate closes; activityEnd waits for the chunk in flight")
        XCTAssertEqual(talkEffects(on(.micClosed(id: (closeID(fx) ?? 0) + 1))), [], "a stale close is ignored")
        XCTAssertEqual(talkEffects(on(.micClosed(id: closeID(fx) ?? -1))), ["activityEnd"])
        XCTAssertEqual(talkEffects(on(.tick, at: 5)), [], "sent once")
    }

    func testActivityEndIsSentEvenIfTheLastChunkNeverComes() {
        live()
        key(space, at: 1)
        key(space, at: 2)
        XCTAssertEqual(s.nextDeadline(now: 2).map { $0 <= 2 + TalkState.closeTimeout }, true)
        XCTAssertEqual(talkEffects(on(.tick, at: 2.1)), [])
        XCTAssertEqual(talkEffects(on(.tick, at: 2 + TalkState.closeTimeout)), ["activityEnd"])
    }

    func testPressingAgainBeforeTheLastChunkEndsTheFirstActivityFirst() {
        live()
        on(.input(.kittyFlags(11)))
        key(space, at: 1)
        let first = key(KeyEvent(.character(" "), kind: .release), at: 2)
        XCTAssertEqual(talkEffects(first), stop)
        XCTAssertEqual(talkEffects(key(space, at: 2.05)), ["activityEnd", "activityStart", "open"])
        XCTAssertEqual(talkEffects(on(.micClosed(id: closeID(first) ?? -1))), [], "the old close no longer matters")
    }

    func testTheSpeakerIsToldWhenTheModelAnswersAndWhenAReplyIsCut() {
        live()
        XCTAssertTrue(on(.live(.outputTranscription("Hello", finished: false))).contains(.speaker(.modelAnswering(true))))
        XCTAssertEqual(s.talk.reply, .responding)
        XCTAssertEqual(key(.ctrl("c")), [.speaker(.cutReply)])
        XCTAssertEqual(s.talk.reply, .discarding)
        let done = on(.live(.turnComplete(reason: nil)))
        XCTAssertTrue(done.contains(.speaker(.acceptReplies)))
        XCTAssertTrue(done.contains(.speaker(.modelAnswering(false))))
    }

    /// A typed turn that interrupts a reply appeared twice, on screen and in the JSONL: the old reply's tail
    /// cleared the "typed turn pending" flag before the service's echo of the typed text arrived.
    func testATypedTurnOverAReplyIsShownAndSavedOnce() {
        live()
        on(.live(.outputTranscription("Once upon a time there", finished: false)))
        key(KeyEvent(.tab))
        for c in "stop please" { key(.char(c)) }
        var records = key(KeyEvent(.enter), at: 2)
        XCTAssertTrue(records.contains(.speaker(.cutReply)), "the old reply stops here too")
        // What the service sends after a typed turn cuts a reply: the old reply's tail, its end, then the
        // echo of the typed text, then the answer.
        records += on(.live(.outputTranscription(" was a", finished: false)))
        records += on(.live(.interrupted))
        records += on(.live(.turnComplete(reason: nil)))
        records += on(.live(.inputTranscription("stop ", finished: false)))
        records += on(.live(.inputTranscription("please", finished: false)))
        records += on(.live(.inputTranscription("", finished: true)))
        records += on(.live(.outputTranscription("Stopped.", finished: false)))
        records += on(.live(.turnComplete(reason: nil)))
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["stop please"])
        XCTAssertEqual(lines.filter { $0.0 == .model }.map(\.1), ["Once upon a time there", "Stopped."])
        let users = records.filter { if case .record(let r) = $0, r == .line(speaker: .user, text: "stop please", interrupted: false) { true } else { false } }
        XCTAssertEqual(users.count, 1, "\(users)")
        XCTAssertNil(s.typedTurn)
    }

    func testSpeechAfterATypedTurnIsNotMistakenForItsEcho() {
        live()
        key(KeyEvent(.tab))
        for c in "hello" { key(.char(c)) }
        key(KeyEvent(.enter), at: 1)
        key(KeyEvent(.escape))
        on(.live(.inputTranscription("what's the weather", finished: true)))
        XCTAssertEqual(lines.filter { $0.0 == .user }.map(\.1), ["hello", "what's the weather"])
    }

    func testCtrlCInAConsentPopupRefusesEverythingAndQuits() {
        live()
        on(.live(.toolCall((1...3).map { FunctionCall(id: "s\($0)", name: "run_shell_command", args: ["command": "true"]) })))
        for i in 1...3 { on(.confirmTool(id: "s\(i)", name: "run_shell_command", detail: "true")) }
        let fx = key(.ctrl("c"))
        XCTAssertEqual(fx.filter { if case .answerConfirmation(_, false) = $0 { true } else { false } }.count, 3)
        XCTAssertEqual(fx.last, .quit)
        XCTAssertTrue(s.quitting)
        XCTAssertEqual(on(.confirmTool(id: "late", name: "run_shell_command", detail: "x")), [.answerConfirmation(id: "late", yes: false)])
    }

    func testCtrlZClosesTheMicThenSuspends() {
        live()
        key(space, at: 1)
        let fx = key(.ctrl("z"), at: 2)
        XCTAssertEqual(talkEffects(fx), ["close", "activityEnd"])
        XCTAssertEqual(fx.last, .suspend)
    }

    func testHelpOpensAndAnyKeyCloses() {
        key(.char("?"))
        XCTAssertEqual(s.ui.overlay, .help(top: 0))
        key(.char("x"))
        XCTAssertNil(s.ui.overlay)
    }
}
