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

            Keys: Space push-to-talk · v voice menu · p persona menu · E edit the system instruction in $VISUAL/$EDITOR · m push-to-talk/open mic · Tab or i type a message (@path attaches an image; Tab completes it) · Ctrl-O attach an image · c camera/screen on/off · t tool log (←→ turns tools on and off) · T thoughts · PgUp/PgDn/Home/End scroll · ? help · q or Ctrl-C quit (Ctrl-C first interrupts a reply).

            Files: config $XDG_CONFIG_HOME/parley/config.toml, themes $XDG_CONFIG_HOME/parley/themes/, transcripts $XDG_DATA_HOME/parley/, state and log $XDG_STATE_HOME/parley/.
            """,
        version: ParleyVersion.text,
        subcommands: [Ask.self, Simulate.self, Devices.self, Voices.self, Models.self, History.self, Export.self, Doctor.self]
    )

    @OptionGroup var common: CommonOptions

    @OptionGroup(title: "Camera and screen") var visionOptions: VisionOptions

    @OptionGroup var demoFlag: DemoFlag
    var demo: Bool { demoFlag.demo }

    @Flag(help: "Continue the last conversation (its resumption handle lasts 2 hours).")
    var resume = false

    @Flag(name: .customLong("print-config"), help: "Print the merged configuration (secrets redacted) and exit.")
    var printConfig = false

    /// The conversation runs on the process's main thread: its loop blocks in `poll`, which must not hold one of
    /// the concurrency pool's threads (an async `main` runs on them and parks the main thread). The subcommands
    /// are async and run in a task while the main thread waits. `--camera` may stand without a device.
    static func main() {
        do {
            var command = try parseAsRoot(VisionOptions.normalized(Array(CommandLine.arguments.dropFirst())))
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
        let paths = Paths()
        config.voice = RememberedState.startVoice(config, remembered: .load(paths.stateFile))
        if printConfig {
            print(config.printed, terminator: "")
            return
        }
        if !demo { try report { try config.checkAccessOffline() } }
        FileLogHandler.bootstrap(path: config.logFile ?? paths.defaultLogFile)
        var resumed: (ResumeStore.Saved, age: Double)?
        if resume {
            switch ResumeStore(path: paths.resumeFile).usable(model: config.model) {
            case .success(let r): resumed = r
            case .failure(let e): throw report(e)
            }
        }
        let app = InteractiveApp(
            config: config, demo: demo, noAudio: common.noAudio, resume: resumed, paths: paths, time: time,
            launchedAt: launchedAt)
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
