import ArgumentParser
import PulseAudio

/// `parley devices`: the sound server's sources and sinks, for --mic and --speaker.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List microphones (sources) and speakers (sinks) of PulseAudio or PipeWire; * marks the defaults.")

    @Flag(name: .customLong("monitors"), help: "Also list the monitor sources of sinks (they record what a sink plays).")
    var monitors = false

    func run() throws {
        let devices: AudioDevices
        do {
            devices = try AudioDevices.query()
        } catch {
            throw report(.usage("\(error.message): \(error.hint)"))
        }
        print(Self.listing(devices, monitors: monitors), terminator: "")
    }

    /// The listing: sources then sinks, the defaults marked; when no microphone is shown, how to see monitors.
    static func listing(_ devices: AudioDevices, monitors: Bool) -> String {
        func line(_ d: AudioDevice) -> String {
            "  \(d.isDefault ? "*" : " ") \(d.name)" + (d.description.isEmpty || d.description == d.name ? "" : "  — \(d.description)")
                + (d.isMonitor ? "  (monitor)" : "") + (d.isDefault ? "  (default)" : "")
        }
        var out = ["sound server: \(DoctorChecks.serverKind(devices.server))", "sources (--mic):"]
        let shown = devices.sources.filter { monitors || !$0.isMonitor }
        out += shown.map(line)
        let hidden = devices.sources.count - shown.count
        if !devices.sources.contains(where: { !$0.isMonitor }) {
            out.append("    no microphone" + (hidden > 0
                ? "; \(hidden) monitor source\(hidden == 1 ? "" : "s") (what a speaker plays) — list them with `parley devices --monitors`"
                : " (only the monitors above)"))
        } else if hidden > 0 {
            out.append("    (\(hidden) monitor source\(hidden == 1 ? "" : "s") hidden: --monitors lists them)")
        }
        out.append("sinks (--speaker):")
        out += devices.sinks.map(line)
        if devices.sinks.isEmpty { out.append("    no speaker") }
        if !devices.sources.contains(where: \.isDefault) && !devices.sinks.contains(where: \.isDefault) {
            out.append("(the server names no default devices)")
        }
        return out.joined(separator: "\n") + "\n"
    }
}
