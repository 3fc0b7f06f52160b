import ArgumentParser
import Foundation
import Live
import LiveSimulator
import Logging

/// `parley doctor`: everything parley needs, checked at once, each finding with what to do about it.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the key or credentials, sound, terminal, config, MCP servers and the network path to the service.",
        discussion: """
            Prints one line per check (OK, SKIP, WARN or FAIL) and, under each problem, how to fix it. The key's \
            value is never shown, only where it comes from. The mic is recorded for one second to show its level. \
            With --demo the network path is checked against the built-in simulator on loopback.

            Exit status: 0 when nothing failed (warnings allowed), 1 when at least one check failed, 64 for a bad \
            command line.
            """
    )

    @OptionGroup var common: CommonOptions

    @OptionGroup var demoFlag: DemoFlag
    var simulator: Bool { demoFlag.demo }

    @Flag(help: "Print the findings as one JSON object: {ok, worst, checks: [{area, item, status, detail, fix}]}.")
    var json = false

    func run() async throws {
        // The Live and MCP code log; a doctor's output is its report alone.
        LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
        let environment = ProcessInfo.processInfo.environment
        var report = DoctorReport()

        let (loaded, configChecks) = DoctorChecks.config(common, paths: Paths())
        report.checks += configChecks
        var config = loaded ?? Config()
        if loaded == nil, let endpoint = common.endpoint { config.endpoint = endpoint }
        var access: (access: LiveAccess, credential: Credential?)?
        if !simulator, let loaded, loaded.usesVertex(environment: environment) || loaded.auth.tokenCommand != nil {
            let found = await DoctorAccess.run(loaded, environment: environment)
            report.checks += found.checks
            access = found.access.map { ($0, found.credential) }
        } else {
            report.checks.append(DoctorChecks.key(loaded, demo: simulator, environment: environment))
        }

        if common.noAudio {
            report.checks.append(.skip("sound", "server", "not checked: --no-audio"))
        } else {
            report.checks += DoctorChecks.sound(loaded)
        }
        report.checks += DoctorChecks.terminal(environment: environment)
        report.checks += await DoctorChecks.mcp(config.mcp)
        report.checks += await network(config, access: access)

        print(json ? report.json : report.text, terminator: "")
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    /// The network path: to the simulator (started here) with --demo, otherwise to the configured endpoint.
    func network(_ config: Config, access: (access: LiveAccess, credential: Credential?)? = nil) async -> [DoctorCheck] {
        if let (access, credential) = access {
            // Vertex AI or a token command: the endpoint as parley dials it, with the token just fetched.
            let setup = config.setup(tools: [], manualActivity: true, backend: access.backend)
            let url = access.endpoint ?? (credential ?? .none).defaultEndpoint
            return await DoctorNetwork(url: url, credential: credential ?? .none, setup: credential == nil ? nil : setup).run()
        }
        let setup = config.setup(tools: [], manualActivity: true)
        if self.simulator {
            let simulator = LiveSimulator(options: SimulatorOptions())
            do {
                _ = try await simulator.start()
            } catch {
                return [.fail("network", "simulator", "the built-in simulator could not start: \(error)", fix: "check that loopback (127.0.0.1) works")]
            }
            let checks = await DoctorNetwork(url: simulator.url, credential: .none, setup: setup).run()
            try? await simulator.stop()
            return checks
        }
        let credential = (try? config.credential()) ?? .none
        let url = config.endpoint ?? credential.defaultEndpoint
        // Without a key the service would refuse the setup; a custom endpoint (a simulator) may need none.
        let canSetUp = credential != .none || config.endpoint != nil
        return await DoctorNetwork(url: url, credential: credential, setup: canSetUp ? setup : nil).run()
    }
}

/// `--demo`, shared by the root command and `parley doctor`. ArgumentParser lets a parent command take a flag it
/// defines wherever it appears on the line, so a subcommand sees the value only through the same group type.
struct DemoFlag: ParsableArguments {
    @Flag(help: "Use the built-in Live simulator on loopback instead of the service: no key, no network.")
    var demo = false
}
