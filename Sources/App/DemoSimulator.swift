import Foundation
import LiveSimulator

/// The options of `parley --demo`'s built-in simulator. `PARLEY_DEMO_SIM_OPTIONS` may hold `parley simulate`'s
/// fault flags (e.g. `--go-away-after 30 --every-connection`), for soak tests of the real program; it is not a
/// user setting, so it is not in the config or the help.
enum DemoSimulator {
    static func options(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SimulatorOptions {
        var options = SimulatorOptions(resumptionUpdateAfterSetup: true)
        if let text = environment["PARLEY_DEMO_SIM_OPTIONS"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            do {
                options = try Simulate.parse(words).options
            } catch {
                throw ParleyError.usage("PARLEY_DEMO_SIM_OPTIONS: \(Simulate.message(for: error))")
            }
            options.resumptionUpdateAfterSetup = true
        }
        return options
    }
}
