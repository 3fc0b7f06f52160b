import Conversation
import Foundation
import Live
import Logging
import ParleyTime
import PulseAudio
import TUI

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen conversation: starts everything (`Launch`), runs the `ConversationLoop` on the process's main
/// thread, and gives everything back.
final class InteractiveApp {
    let config: Config
    let demo: Bool
    let noAudio: Bool
    /// The conversation to continue, until the launch has used it.
    private var resume: ResumePlan?
    let paths: Paths
    /// The one clock: the terminal, the reducer and the meter cadence all read it.
    let time: TimeSource
    /// When `main` started, on `time`.
    let launchedAt: Double
    let logger = Logger(label: "parley")
    let events = EventQueue()

    init(
        config: Config, demo: Bool, noAudio: Bool, resume: ResumePlan?, paths: Paths,
        time: TimeSource, launchedAt: Double
    ) {
        self.config = config
        self.demo = demo
        self.noAudio = noAudio
        self.resume = resume
        self.paths = paths
        self.time = time
        self.launchedAt = launchedAt
    }

    /// Runs until the user quits, on the calling thread (the process's main thread, not one of the
    /// concurrency pool's: the loop blocks in `poll`); returns the exit status.
    func run() throws -> Int32 {
        let (launch, state) = try launched()
        ConversationLoop(launch: launch, events: events, paths: paths, time: time, logger: logger, launchedAt: launchedAt)
            .run(from: state)
        // The loop is done with `launch`: the task that stops it is its only user from here on.
        let stopping = HandedOver(launch)
        waitFor { await stopping.value.stop() }
        launch.store?.close()
        // One line on the restored terminal: what the conversation used and cost.
        if state.usage.ledger.turnCount > 0 { StandardStream.write(state.usage.summaryLine + "\n", to: 1) }
        // A transcript that could not be saved whole is a failed run (EX_IOERR).
        return launch.store?.failure == nil ? 0 : 74
    }

    /// Everything started and the first state. A continued conversation's records are let go here: they are
    /// on screen and in the seed by now, and a long one's records weigh tens of megabytes.
    private func launched() throws -> (Launch, AppState) {
        let (config, demo, noAudio, resume, paths, events, time, logger) =
            (config, demo, noAudio, resume, paths, events, time, logger)
        self.resume = nil
        let launch = try waitFor {
            try await Launch.start(
                config: config, demo: demo, noAudio: noAudio, resume: resume, paths: paths, events: events, time: time,
                logger: logger)
        }
        return (launch, launch.initialState(demo: demo, noAudio: noAudio, resume: resume))
    }
}
