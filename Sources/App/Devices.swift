import ArgumentParser
import PulseAudio

/// `parley devices`: the PulseAudio sources and sinks, for --mic and --speaker.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List PulseAudio microphones (sources) and speakers (sinks).")

    @Flag(name: .customLong("monitors"), help: "Also list the monitor sources of sinks.")
    var monitors = false

    func run() throws {
        let devices: AudioDevices
        do {
            devices = try AudioDevices.query()
        } catch {
            throw report(.usage("\(error.message): \(error.hint)"))
        }
        print("sources (--mic):")
        for d in devices.sources where monitors || !d.isMonitor { print(line(d)) }
        print("sinks (--speaker):")
        for d in devices.sinks { print(line(d)) }
    }

    func line(_ d: AudioDevice) -> String {
        "  \(d.isDefault ? "*" : " ") \(d.name)" + (d.description.isEmpty || d.description == d.name ? "" : "  — \(d.description)")
    }
}
