import Foundation
import Live
import Logging
import ParleyTime
import PulseAudio
import ParleyLock
import TUI

/// The checks of `parley doctor` other than the network path: each returns findings, never throws, and never
/// puts a secret into a finding.
enum DoctorChecks {
    // MARK: config

    /// Loads the config file as parley would. A missing default file is fine (defaults); a missing `--config`
    /// file or one that does not parse fails.
    static func config(_ options: CommonOptions, paths: Paths) -> (Config?, [DoctorCheck]) {
        let path = options.config ?? paths.configFile
        do {
            let config = try options.resolve(paths: paths)
            let exists = FileManager.default.fileExists(atPath: path)
            var checks = [DoctorCheck.ok("config", "file", exists ? "\(path) parses" : "no file at \(path): defaults in use")]
            checks.append(theme(config.theme))
            return (config, checks)
        } catch {
            return (nil, [.fail("config", "file", "\(error)", fix: "fix that setting (see the README's Configuration section) or move the file aside")])
        }
    }

    static func theme(_ name: String) -> DoctorCheck {
        let loader = ThemeLoader.standard()
        switch loader.loadStrict(name) {
        case .success:
            return .ok("config", "theme", "\(name) (themes from \(loader.searchDirectories.joined(separator: ", ")))")
        case .failure(let e):
            return .fail("config", "theme", "\(e)", fix: "pick one of: \(loader.availableThemes().joined(separator: ", ")) (--theme or theme = …)")
        }
    }

    // MARK: key

    /// Where the key comes from, by the same rule as `Config.credential` (never the value).
    static func key(_ config: Config?, demo: Bool, environment: [String: String]) -> DoctorCheck {
        if demo { return .ok("key", "API key", "not needed with --demo (the built-in simulator)") }
        var source: String?
        var value: String?
        for name in ["GEMINI_API_KEY", "GOOGLE_API_KEY"] {
            if let v = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty {
                source = name
                value = v
                break
            }
        }
        if source == nil, let k = config?.apiKey, !k.isEmpty {
            source = "api_key in the config file"
            value = k.revealed
        }
        guard let source, let value else {
            if config?.endpoint != nil {
                return .ok("key", "API key", "none set; none is sent to the custom endpoint")
            }
            return .fail("key", "API key", "no key in GEMINI_API_KEY, GOOGLE_API_KEY or the config file",
                         fix: "export GEMINI_API_KEY=… with a key from https://aistudio.google.com/apikey (or try parley --demo)")
        }
        if value.hasPrefix("auth_tokens/") { return .ok("key", "API key", "an ephemeral token, from \(source)") }
        // Gemini API keys are 39 characters starting "AIza"; anything else is usually a paste of the wrong thing.
        if !(value.hasPrefix("AIza") && value.count == 39) {
            return .warn("key", "API key", "from \(source), but it does not look like a Gemini API key (AIza…, 39 characters)",
                         fix: "copy the key again from https://aistudio.google.com/apikey (no quotes or spaces)")
        }
        return .ok("key", "API key", "from \(source)")
    }

    // MARK: sound

    /// The sound server (PulseAudio or PipeWire's PulseAudio server), its defaults, and one second of the mic.
    static func sound(_ config: Config?, micSeconds: Double = 1) -> [DoctorCheck] {
        let area = "sound"
        let devices: AudioDevices
        do {
            devices = try AudioDevices.query(timeout: 3)
        } catch {
            return [.fail(area, "server", error.message,
                          fix: "\(error.hint); on a desktop start it with `systemctl --user start pipewire-pulse` (or pulseaudio); parley --no-audio works without sound")]
        }
        var checks: [DoctorCheck] = [.ok(area, "server", serverKind(devices.server))]

        let mics = devices.sources.filter { !$0.isMonitor }
        let wantedMic = config?.mic
        let mic = wantedMic.flatMap { name in devices.sources.first { $0.name == name } } ?? devices.sources.first(where: \.isDefault)
        if let wantedMic, !devices.sources.contains(where: { $0.name == wantedMic }) {
            checks.append(.fail(area, "microphone", "\(wantedMic) (from --mic or the config) is not there",
                                fix: "pick one from `parley devices` (add --monitors for monitor sources)"))
        } else if let mic, !mic.isMonitor || wantedMic != nil {
            checks.append(.ok(area, "microphone", label(mic) + (wantedMic == nil ? " (default)" : "")))
        } else if mics.isEmpty {
            checks.append(.warn(area, "microphone", "no microphone: only monitor sources (what a speaker plays)",
                                fix: "plug in a microphone; `parley devices --monitors` lists monitors to test with --mic NAME.monitor"))
        } else {
            checks.append(.warn(area, "microphone", "the default source is \(mic.map(label) ?? "unset"), not a microphone",
                                fix: "choose one with --mic (see `parley devices`) or `pactl set-default-source NAME`"))
        }

        let wantedSink = config?.speaker
        if let wantedSink, !devices.sinks.contains(where: { $0.name == wantedSink }) {
            checks.append(.fail(area, "speaker", "\(wantedSink) (from --speaker or the config) is not there", fix: "pick one from `parley devices`"))
        } else if let sink = wantedSink.flatMap({ n in devices.sinks.first { $0.name == n } }) ?? devices.sinks.first(where: \.isDefault) {
            checks.append(.ok(area, "speaker", label(sink) + (wantedSink == nil ? " (default)" : "")))
        } else {
            checks.append(.fail(area, "speaker", "no speaker (no sink)", fix: "connect an output device, or run parley --no-audio"))
        }

        // The source parley would record from, if it is there (a missing --mic already failed above).
        if let mic, wantedMic == nil || mic.name == wantedMic {
            checks.append(micLevel(device: wantedMic, name: mic.name, seconds: micSeconds))
        }
        return checks
    }

    /// "PipeWire 0.3.65 (PulseAudio server 15.0.0)" or "PulseAudio 16.1", from the server's name and version.
    static func serverKind(_ server: String) -> String {
        // pipewire-pulse calls itself "PulseAudio (on PipeWire 0.3.65)" and reports a PulseAudio version.
        if let r = server.range(of: "(on PipeWire ") {
            let rest = server[r.upperBound...]
            let pw = rest.prefix { $0 != ")" }
            let pa = rest.drop { $0 != ")" }.dropFirst().trimmingCharacters(in: .whitespaces)
            return "PipeWire \(pw)" + (pa.isEmpty ? "" : " (PulseAudio server \(pa))")
        }
        if server.lowercased().hasPrefix("pulseaudio") { return "PulseAudio" + server.dropFirst("pulseaudio".count) }
        return server
    }

    static func label(_ d: AudioDevice) -> String {
        d.description.isEmpty || d.description == d.name ? d.name : "\(d.name) (\(d.description))"
    }

    /// Records `seconds` from the mic and reports its loudest peak and its RMS.
    static func micLevel(device: String?, name: String, seconds: Double) -> DoctorCheck {
        let area = "sound", item = "mic level"
        struct Tally {
            var chunks = 0
            var peak = AudioLevel.floorDBFS
            var energy = 0.0
            var clipped = false
        }
        let tally = LockedTally(Tally())
        let capture = PulseCapture(options: PulseCapture.Options(device: device), onLevel: { level in
            tally.update {
                $0.chunks += 1
                $0.peak = max($0.peak, level.peakDBFS)
                $0.energy += AudioLevel.amplitude(dBFS: level.rmsDBFS) * AudioLevel.amplitude(dBFS: level.rmsDBFS)
                $0.clipped = $0.clipped || level.clipped
            }
        })
        do {
            try capture.open { _ in }
        } catch {
            return .fail(area, item, "cannot record from \(name): \(error)", fix: "check that nothing holds the device exclusively; try another --mic")
        }
        // 20 ms chunks; wait for a second's worth, or give up a little after that.
        let wanted = Int(seconds * 50)
        let deadline = TimeSource.monotonic.now() + seconds + 2
        while tally.read({ $0.chunks }) < wanted, TimeSource.monotonic.now() < deadline { usleep(20_000) }
        capture.close()
        let t = tally.read { $0 }
        guard t.chunks > 0 else {
            return .fail(area, item, "no audio from \(name) in \(Int(seconds + 2)) s", fix: "the device is stuck or suspended; check it with `pactl list sources`")
        }
        let rms = AudioLevel.dBFS(amplitude: (t.energy / Double(t.chunks)).squareRoot())
        let reading = "\(name): " + String(format: "peak %.0f dBFS, rms %.0f dBFS over %.1f s", t.peak, rms, Double(t.chunks) / 50)
        if t.peak <= -90 {
            return .warn(area, item, "\(reading): silence", fix: "unmute or turn up the mic (`pactl set-source-mute \(name) 0`, `pactl set-source-volume \(name) 100%`) — or it is a monitor with nothing playing")
        }
        if t.clipped {
            return .warn(area, item, "\(reading): clipping", fix: "turn the mic down (`pactl set-source-volume \(name) 70%`)")
        }
        return .ok(area, item, reading)
    }

    // MARK: terminal

    static func terminal(environment: [String: String]) -> [DoctorCheck] {
        let area = "terminal"
        var checks: [DoctorCheck] = []
        let codeset = TerminalProbe.localeCodeset()
        if TerminalProbe.isUTF8(codeset: codeset) {
            checks.append(.ok(area, "locale", "\(codeset) (\(environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] ?? "C"))"))
        } else {
            checks.append(.warn(area, "locale", "\(codeset.isEmpty ? "unknown" : codeset), not UTF-8: parley switches to C.UTF-8, but other programs may garble text",
                                fix: "export LANG=C.UTF-8 (or en_US.UTF-8) in your shell profile"))
        }

        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" {
            checks.append(.fail(area, "TERM", term.isEmpty ? "TERM is not set" : "TERM=dumb cannot draw a full-screen program",
                                fix: "run parley in a terminal emulator (TERM=xterm-256color or similar)"))
        } else if environment["NO_COLOR"].map({ !$0.isEmpty }) == true {
            checks.append(.ok(area, "colours", "TERM=\(term); NO_COLOR is set, so parley draws without colour"))
        } else if let n = TerminalProbe.colors(term: term) {
            if n >= 256 {
                checks.append(.ok(area, "colours", "TERM=\(term): \(n) colours"))
            } else if n >= 8 {
                checks.append(.warn(area, "colours", "TERM=\(term): \(n) colours; themes are drawn with the nearest ones",
                                    fix: "use TERM=xterm-256color (or your terminal's -256color entry) if the terminal supports it"))
            } else {
                checks.append(.warn(area, "colours", "TERM=\(term): no colours", fix: "use a colour terminal, or --theme mono"))
            }
        } else {
            checks.append(.fail(area, "colours", "terminfo does not know TERM=\(term)",
                                fix: "install its entry (apt-get install ncurses-term) or set TERM=xterm-256color"))
        }

        if let size = TerminalProbe.size(fd: 1) ?? TerminalProbe.size(fd: 0) {
            let min = FrameLayout.minimumSize
            if size.columns < min.columns || size.rows < min.rows {
                checks.append(.warn(area, "size", "\(size): smaller than \(min) (parley shows only a message)", fix: "make the window larger"))
            } else {
                checks.append(.ok(area, "size", "\(size)"))
            }
        } else {
            checks.append(.skip(area, "size", "not a terminal"))
        }

        switch TerminalProbe.kittyKeyboard(timeout: 0.5) {
        case nil:
            checks.append(.skip(area, "keyboard", "not asked: stdin or stdout is not a terminal"))
        case .supported:
            checks.append(.ok(area, "keyboard", "kitty keyboard protocol: hold Space to talk"))
        case .unsupported, .pending:
            let tmux = environment["TMUX"].map { !$0.isEmpty } ?? false
            checks.append(.warn(area, "keyboard", "no kitty keyboard protocol\(tmux ? " (tmux does not pass it through)" : ""): Space is tapped to start and stop talking",
                                fix: "for true push-to-talk use kitty, foot, WezTerm, Ghostty, Alacritty ≥ 0.13 or iTerm2 ≥ 3.5\(tmux ? ", outside tmux" : "")"))
        }
        return checks
    }

    // MARK: MCP

    /// Starts each `[[mcp]]` server, lists its tools and stops it.
    static func mcp(_ configs: [MCPServerConfig], timeout: Double = 10) async -> [DoctorCheck] {
        if configs.isEmpty { return [.skip("MCP", "servers", "none configured ([[mcp]] in the config)")] }
        var checks: [DoctorCheck] = []
        let logger = Logger(label: "parley.doctor.mcp")
        for server in configs {
            var registry = ToolRegistry()
            let (running, problems) = await MCPServers.start([server], into: &registry, timeout: timeout, logger: logger)
            await running.stop()
            if let problem = problems.first(where: { $0.contains("could not start") }) {
                checks.append(.fail("MCP", server.name, problem, fix: "run `\(([server.command] + server.args).joined(separator: " "))` yourself to see why"))
                continue
            }
            let names = registry.tools.keys.sorted()
            let shown = names.count > 6 ? names.prefix(6).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
            if names.isEmpty {
                checks.append(.warn("MCP", server.name, "started, but it offers no tools", fix: "check the server's own configuration"))
            } else {
                checks.append(.ok("MCP", server.name, "\(names.count) tool\(names.count == 1 ? "" : "s"): \(shown)"))
            }
            for p in problems { checks.append(.warn("MCP", server.name, p, fix: "rename or drop one of the clashing tools")) }
        }
        return checks
    }
}

/// The capture thread's running tallies, read by the waiting thread.
final class LockedTally<T: Sendable>: Sendable {
    private let value: Locked<T>
    init(_ value: T) { self.value = Locked(value) }
    func update(_ f: (inout T) -> Void) { value.withLock { f(&$0) } }
    func read<R>(_ f: (T) -> R) -> R { value.withLock { f($0) } }
}
