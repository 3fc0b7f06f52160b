import Conversation
import Foundation
import ParleyTime
import Live
import TUI

/// Carries out the reducer's effects. Whatever an effect learns comes back as events for the reducer; it
/// never writes the state itself.
final class EffectRunner {
    private let launch: Launch
    private let events: EventQueue
    private let paths: Paths
    private let toolRunner: ToolRunner
    private let confirmations = Confirmations()
    private let screen: ScreenPacer

    init(launch: Launch, events: EventQueue, paths: Paths, screen: ScreenPacer) {
        self.launch = launch
        self.screen = screen
        self.events = events
        self.paths = paths
        toolRunner = ToolRunner(registry: launch.tools, policy: launch.toolPolicy)
    }

    /// Runs one effect; returns the events it reports at once.
    func perform(_ effect: Effect, state: AppState) -> [AppEvent] {
        let session = launch.session
        switch effect {
        case .mic(let command): launch.audio.perform(command)
        case .speaker(let command): launch.audio.perform(command)
        case .live(let command): send(command, to: session)
        case .runTools(let calls):
            let events = self.events
            let confirmations = self.confirmations
            toolRunner.run(calls, confirm: { call, detail in
                await confirmations.ask(call.id) { events.post(.confirmTool(id: call.id, name: call.name, detail: detail)) }
            }, finished: { a, outcome in
                events.post(.toolFinished(id: a.id, outcome: outcome, result: a.response.compactText))
            }, partial: { events.post(.toolPartial(id: $0.id, result: $0.response.compactText)) },
            respond: { session.sendToolResponse($0) })
        case .cancelTools(let ids):
            for id in ids { confirmations.answer(id, yes: false) }
            toolRunner.cancel(ids)
        case .answerConfirmation(let id, let yes):
            confirmations.answer(id, yes: yes)
        case .record(var r):
            r.recordingOffset = launch.recorder?.offset(for: r.kind)
            launch.store?.append(r)
        case .scroll(let command):
            var ui = state.ui
            launch.renderer.scrollTranscript(command, in: &ui)
            return [.scrolled(ui.transcript.scroll)]
        case .export:
            return [.exported(export())]
        case .saveResumeHandle:
            if let (handle, age) = session.resumptionHandle {
                ResumeStore(path: paths.resumeFile).save(.init(
                    handle: handle, savedAt: TimeSource.wallSeconds() - age, model: launch.config.model,
                    voice: state.voice, transcript: launch.store?.path))
            }
        case .rememberVoice(let voice):
            RememberedState(voice: voice).save(paths.stateFile)
        case .suspend:
            // The recording is made whole before the process stops (a kill meanwhile loses nothing).
            launch.recorder?.suspend()
            launch.terminal.suspend()
            launch.recorder?.resumeAfterSuspend()
            screen.invalidate()
            return [.screenSize(launch.terminal.screenSize)]
        case .quit:
            break
        case .vision(let command):
            return launch.vision.perform(command)
        case .recording(let start):
            guard let recorder = launch.recorder else {
                return [.recording(.failed(RecordingFailure(
                    message: "cannot record: this conversation is not being saved", hint: "see the first lines of the transcript for why")))]
            }
            if start { return [.recording(recorder.start())] }
            return recorder.stop().map { [.recording($0)] } ?? []
        case .editInstruction(let text):
            let outcome = launch.terminal.lend { InstructionEditor.edit(text) }
            screen.invalidate()
            return [.screenSize(launch.terminal.screenSize), .instructionEdited(outcome)]
        case .answerTools(let answers):
            session.sendToolResponse(answers)
        }
        return []
    }

    /// The one place session commands become session calls.
    private func send(_ command: SessionCommand, to session: LiveSession) {
        switch command {
        case .activityStart: session.activityStart()
        case .activityEnd: session.activityEnd()
        case .audioStreamEnd: session.audioStreamEnd()
        case .sendText(let text): session.sendText(text)
        case .retryNow: session.retryNow()
        case .switchVoice(let name, let duringReply):
            session.reconfigure(requireHandle: session.hasResumptionHandle || duringReply) {
                let language = $0.generationConfig?.speechConfig?.languageCode
                $0.generationConfig?.speechConfig = SpeechConfig(voiceName: name, languageCode: language)
            }
        case .changeContext(let change, let duringReply):
            session.changeContext(prepared(change, for: session.setup), duringReply: duringReply)
        case .changeThinking(let level, let duringReply):
            session.reconfigure(requireHandle: session.hasResumptionHandle || duringReply) {
                $0.generationConfig?.thinkingConfig = level.map { ThinkingConfig(thinkingLevel: $0) }
            }
        case .switchMode(let mode, let duringReply):
            var c = launch.config
            c.mode = mode
            let next = c.setup(tools: launch.tools.declarations, manualActivity: mode == .ptt).realtimeInputConfig
            session.reconfigure(requireHandle: session.hasResumptionHandle || duringReply) { $0.realtimeInputConfig = next }
        }
    }

    /// A change's tools as the launch setup's were built: the model's function behaviours and the backend's
    /// rules (Vertex AI takes no `behavior`).
    private func prepared(_ change: ContextChange, for setup: Setup) -> ContextChange {
        guard let tools = change.tools else { return change }
        var probe = setup
        probe.tools = tools
        LiveModel.traits(of: launch.config.model).apply(launch.config.modelOptions, to: &probe)
        var prepared = change
        prepared.tools = probe.adapted(to: LiveModel.Backend(modelResource: probe.model)).tools ?? []
        return prepared
    }

    private func export() -> Result<String, ExportFailure> {
        guard let store = launch.store else {
            return .failure(ExportFailure(message: "this session is not being saved, so there is nothing to export"))
        }
        let md = (store.path as NSString).deletingPathExtension + ".md"
        let records = (try? TranscriptStore.read(store.path)) ?? []
        let ok = FileManager.default.createFile(atPath: md, contents: Data(TranscriptStore.markdown(records, title: "parley conversation", prices: launch.config.priceTable).utf8))
        return ok ? .success(md) : .failure(ExportFailure(message: "could not write \(md)"))
    }

    /// Refuses what still waits for an answer and stops every tool.
    func stop() {
        confirmations.answerAll(yes: false)
        toolRunner.cancelAll()
    }
}
