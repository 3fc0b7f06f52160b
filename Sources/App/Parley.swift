import ArgumentParser
import Foundation
import Live
import ParleyTime
import TUI

@main
struct Parley: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Talk with Gemini from your terminal: hold Space, speak, and hear the answer.",
        discussion: """
            Without a subcommand parley opens the full-screen conversation. It needs GEMINI_API_KEY (or GOOGLE_API_KEY); `parley --demo` runs everything against a built-in simulator instead, with no key and no network.

            Keys: Space push-to-talk · v voice menu · m push-to-talk/open mic · Tab or i type a message (@path attaches an image; Tab completes it) · Ctrl-O attach an image · c camera/screen on/off · t tool log · T thoughts · PgUp/PgDn/Home/End scroll · / search the transcript (n/N older/newer) · ? help · q or Ctrl-C quit (Ctrl-C first interrupts a reply).

            Files: config $XDG_CONFIG_HOME/parley/config.toml, themes $XDG_CONFIG_HOME/parley/themes/, transcripts $XDG_DATA_HOME/parley/, state and log $XDG_STATE_HOME/parley/.
            """,
        version: ParleyVersion.text,
        subcommands: [Ask.self, Simulate.self, Devices.self, Voices.self, Models.self, History.self, Export.self, Doctor.self]
    )

    @OptionGroup var common: CommonOptions

    @OptionGroup(title: "Camera and screen") var visionOptions: VisionOptions

    @OptionGroup var demoFlag: DemoFlag
    var demo: Bool { demoFlag.demo }

    @Option(
        help: ArgumentHelp(
            "Continue a saved conversation (default: the latest; an ID or a unique prefix as `parley history` prints it): through its resumption handle within 2 hours, else in a new session seeded with what was said.",
            valueName: "id"))
    var resume: String?

    @Flag(help: "Record the conversation's sound (your mic left, the model right) beside its transcript; R starts and stops it.")
    var record = false

    @Flag(name: .customLong("print-config"), help: "Print the merged configuration (secrets redacted) and exit.")
    var printConfig = false

    /// The conversation runs on the process's main thread: its loop blocks in `poll`, which must not hold one of
    /// the concurrency pool's threads (an async `main` runs on them and parks the main thread). The subcommands
    /// are async and run in a task while the main thread waits. `--camera` may stand without a device, `--resume`
    /// without an ID.
    static func main() {
        do {
            let arguments = ResumePlan.normalized(VisionOptions.normalized(Array(CommandLine.arguments.dropFirst())))
            var command = try parseAsRoot(arguments)
            if var async = command as? AsyncParsableCommand {
                try waitFor { try await async.run() }
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    func run() throws {
        // The one clock: everything the conversation runs on reads it (Launch hands it on).
        let time = TimeSource.monotonic
        let launchedAt = time.now()
        NetworkThreads.useOne()
        var config = try report { try common.resolve() }
        visionOptions.apply(to: &config.vision)
        if record { config.recording.enabled = true }
        let paths = Paths()
        config.voice = RememberedState.startVoice(config, remembered: .load(paths.stateFile))
        if printConfig {
            print(config.printed, terminator: "")
            return
        }
        if !demo { try report { try config.checkAccessOffline() } }
        FileLogHandler.bootstrap(path: config.logFile ?? paths.defaultLogFile)
        var resumed: ResumePlan?
        if let resume {
            let chosen = ResumePlan.Chosen(
                model: common.model != nil, voice: common.voice != nil, system: common.system != nil || common.systemFile != nil)
            resumed = try report {
                try ResumePlan.make(
                    resume, directory: config.transcriptDir ?? paths.transcripts, handles: ResumeStore(path: paths.resumeFile),
                    config: &config, chosen: chosen)
            }
        }
        let app = InteractiveApp(
            config: config, demo: demo, noAudio: common.noAudio, resume: resumed, paths: paths, time: time,
            launchedAt: launchedAt)
        resumed = nil  // the app lets the records go once they are on screen; nothing here keeps them
        let status: Int32
        do {
            status = try app.run()
        } catch let e as ParleyError {
            throw report(e)
        }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Prints a ParleyError on stderr and turns it into the right exit status; other errors pass through.
func report<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as ParleyError { throw report(e) }
}

func report(_ error: ParleyError) -> ExitCode {
    StandardStream.write("parley: \(TerminalText.sanitized(error.description))\n", to: 2)
    return ExitCode(error.exitCode)
}

struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List Gemini's prebuilt voices and their styles.")

    func run() {
        for v in Voice.all {
            print(v.name.padding(toLength: 15, withPad: " ", startingAt: 0) + v.style + (v.name == Voice.defaultName ? "  (default)" : ""))
        }
    }
}
