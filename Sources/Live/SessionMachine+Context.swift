/// Changing the conversation's context (instruction, tools, voice) while it goes on. Where the model takes
/// `contextUpdate` (the model table's column) and the voice stays, the message goes out on the live connection
/// at once; otherwise the change becomes the next connection's setup and the session moves to it as a voice
/// switch does: at the end of the turn, resuming with a handle that covers it, input held meanwhile and an
/// unanswered turn sent again. Either way `setup` holds the change from now on, so every later connection
/// (a `goAway` hand-over, a reconnect, a fresh session) carries it.
extension SessionMachine {
    mutating func changeContext(_ change: ContextChange, duringReply: Bool) {
        if isClosed || failed {
            out.append(.emit(.contextRefused(change, .sessionEnded)))
            return
        }
        let limit = LiveModel.traits(of: setup.model).inputTokenLimit
        if let text = change.systemInstruction?.text, ContextChange.estimatedTokens(text) > limit {
            out.append(.emit(.contextRefused(change, .instructionTooLarge(estimatedTokens: ContextChange.estimatedTokens(text), limit: limit))))
            return
        }
        let next = change.applied(to: setup)
        guard next != setup else {
            out.append(.emit(.contextRefused(change, .unchanged)))
            return
        }
        let byMessage = next.withContext(of: setup) == setup && LiveModel.takesContextUpdate(next)
        setup = next
        if byMessage, let id = connection.liveID, isLive, let sent = sentSetup {
            sendContextUpdate(from: sent, on: id)
            out.append(.emit(.contextChanged(change, via: .contextUpdate)))
            return
        }
        unreportedChanges.append(change)
        // Not live: the next connection's setup carries the change (or `catchUpContext` brings a connection whose
        // setup already went out up to date).
        guard !byMessage, isLive else { return }
        out.append(.log(.info, "changing the context through a resume on a new connection"))
        step(.handoverRequested(requireHandle: hasResumptionHandle(now: now) || duringReply))
    }

    /// A connection went live: if its setup went out before the latest change, a `contextUpdate` brings it up
    /// to date where the model takes one, else a hand-over is asked for; changes it carries are reported.
    mutating func catchUpContext(on id: Int, resumed: Bool) {
        guard let sent = sentSetup else { return }
        var route: ContextChange.Route = resumed ? .resume : .newSession
        if sent != setup {
            if setup.withContext(of: sent) == sent, LiveModel.takesContextUpdate(setup) {
                sendContextUpdate(from: sent, on: id)
                route = .contextUpdate
            } else {
                out.append(.log(.info, "the connection went live with an older setup; moving to one with the current"))
                step(.handoverRequested(requireHandle: true))
                return
            }
        }
        for change in unreportedChanges { out.append(.emit(.contextChanged(change, via: route))) }
        unreportedChanges = []
    }

    /// The changes still waiting can no longer be applied.
    mutating func refuseUnreportedChanges() {
        for change in unreportedChanges { out.append(.emit(.contextRefused(change, .sessionEnded))) }
        unreportedChanges = []
    }

    private mutating func sendContextUpdate(from sent: Setup, on id: Int) {
        let update = ContextUpdate(from: sent, to: setup)
        guard !update.isEmpty else { return }
        write(.contextUpdate(update), to: id)
        sentSetup = sent.withContext(of: setup)
    }

    /// Whether the connection machine gave up (a fatal close, or reconnects exhausted).
    private var failed: Bool { if case .failed = connection.state { true } else { false } }
}

extension Setup {
    /// This setup with the instruction and tools of `other`: what is left to differ needs a new connection.
    func withContext(of other: Setup) -> Setup {
        var s = self
        s.systemInstruction = other.systemInstruction
        s.tools = other.tools
        return s
    }
}
