/// A PulseAudio source (microphone, monitor) or sink (speaker).
public struct AudioDevice: Sendable, Hashable {
    /// The name to pass to `--mic` / `--speaker`, e.g. "alsa_input.usb-…" or "parley_null.monitor".
    public var name: String
    /// The human description, e.g. "Built-in Audio Analog Stereo".
    public var description: String
    /// Whether this is the server's default source or sink.
    public var isDefault: Bool
    /// Whether this source is the monitor of a sink (what the sink plays), not a microphone.
    public var isMonitor: Bool
    /// The device's native sample format, e.g. "s16le 2ch 44100Hz".
    public var sampleSpec: String

    /// Creates a device description from its parts.
    public init(name: String, description: String, isDefault: Bool, isMonitor: Bool = false, sampleSpec: String = "") {
        self.name = name
        self.description = description
        self.isDefault = isDefault
        self.isMonitor = isMonitor
        self.sampleSpec = sampleSpec
    }
}

/// The sources and sinks of a PulseAudio server, queried through the async API with a timeout.
public struct AudioDevices: Sendable, Hashable {
    /// Capture devices, monitors included (see `AudioDevice.isMonitor`).
    public var sources: [AudioDevice]
    /// Playback devices.
    public var sinks: [AudioDevice]
    /// The server's name and version, e.g. "pulseaudio 16.1".
    public var server: String

    /// Creates a device list from its parts.
    public init(sources: [AudioDevice], sinks: [AudioDevice], server: String) {
        self.sources = sources
        self.sinks = sinks
        self.server = server
    }

    /// Lists the devices of `server` (nil: `$PULSE_SERVER` or the default socket). Throws
    /// `PulseAudioError.noServer` after at most `timeout` seconds when nothing answers.
    public static func query(server: String? = nil, timeout: Double = 3) throws(PulseAudioError) -> AudioDevices {
        let ctx = try PulseContext(server: server, name: "parley devices", timeout: timeout)
        let info = try ctx.serverInfo(timeout: timeout)
        let sinks = try ctx.sinks(timeout: timeout).map {
            AudioDevice(name: $0.name, description: $0.description, isDefault: $0.name == info.defaultSink,
                        isMonitor: false, sampleSpec: $0.spec)
        }
        let sources = try ctx.sources(timeout: timeout).map {
            AudioDevice(name: $0.name, description: $0.description, isDefault: $0.name == info.defaultSource,
                        isMonitor: $0.isMonitor, sampleSpec: $0.spec)
        }
        return AudioDevices(sources: sources, sinks: sinks, server: "\(info.serverName) \(info.serverVersion)")
    }

    /// Checks that a server answers within `timeout` seconds; returns its default source and sink names.
    public static func probe(server: String? = nil, timeout: Double = 3) throws(PulseAudioError)
        -> (defaultSource: String?, defaultSink: String?) {
        let ctx = try PulseContext(server: server, name: "parley probe", timeout: timeout)
        let info = try ctx.serverInfo(timeout: timeout)
        return (info.defaultSource, info.defaultSink)
    }

    /// A plain-text table for `parley devices`: sources then sinks, the defaults marked with `*`.
    public var listing: String {
        func rows(_ title: String, _ ds: [AudioDevice]) -> [String] {
            [title] + (ds.isEmpty ? ["  (none)"] : ds.map {
                "\($0.isDefault ? "*" : " ") \($0.name)  —  \($0.description)\($0.isMonitor ? " (monitor)" : "")"
            })
        }
        return (rows("Sources (--mic):", sources) + [""] + rows("Sinks (--speaker):", sinks)).joined(separator: "\n")
    }
}
