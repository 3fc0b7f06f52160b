import Conversation
import Foundation
import Live
import PulseAudio
import TOMLKit
import TUI

/// parley's settings, from `config.toml` and then the command line.
struct Config: Sendable, Equatable {
    typealias Mode = TalkMode

    var model = LiveModel.defaultID
    var voice = Voice.defaultName
    /// The voice was chosen by a flag or the config file (otherwise the last one used is remembered).
    var voiceChosen = false
    var systemInstruction: String?
    var mode = Mode.ptt
    var endpoint: String?
    var apiKey: Secret?
    var mic: String?
    var speaker: String?
    var theme = "default"
    /// How the model is kept from hearing itself (`echo_cancel`; the old true/false still work).
    var echoCancel = EchoCancelMode.auto
    /// `START_SENSITIVITY_HIGH|LOW`.
    var startSensitivity: String?
    /// `END_SENSITIVITY_HIGH|LOW`.
    var endSensitivity: String?
    var prefixPaddingMs: Int?
    var silenceDurationMs: Int?
    /// Playback target length (PulseAudio `tlength`) in milliseconds.
    var playbackBufferMs = 20
    var transcriptDir: String?
    /// Action name → key, e.g. `voice_menu = "V"`.
    var keys: [String: String] = [:]
    var tools = ToolSettings()
    var googleSearch = false
    var logFile: String?
    /// `[[mcp]]` servers.
    var mcp: [MCPServerConfig] = []
    /// Thinking, language, affective dialog, proactive audio and tool behaviours, checked against the model.
    var modelOptions = ModelOptions()

    // Vision (images, camera, screen): all of it lives in Vision/VisionSettings.swift.
    var vision = VisionSettings()
    /// `[recording]`: the conversation's sound beside its transcript (Recording/RecordingSettings.swift).
    var recording = RecordingSettings()
    /// The model was chosen by a flag or the config file (otherwise each backend has its own default).
    var modelChosen = false
    /// `[vertex]`: Vertex AI instead of the Gemini API.
    var vertex = VertexSettings()
    /// `[auth]`: a command that prints tokens.
    var auth = AuthSettings()
    /// `[[persona]]` entries, in the config's order.
    var personas: [Persona] = []
    /// The persona in use from the start (`--persona`), if any.
    var persona: String?

    struct VertexSettings: Sendable, Equatable {
        /// True with `--vertex` or a `[vertex]` table (unless `enabled = false`); nil leaves it to
        /// GOOGLE_GENAI_USE_VERTEXAI / GOOGLE_GENAI_USE_ENTERPRISE.
        var enabled: Bool?
        var project: String?
        var location: String?
    }

    struct AuthSettings: Sendable, Equatable {
        /// Prints a bare token or `{"token": …, "expires_at": …}`; run before each connection that needs a new one.
        var tokenCommand: String?
        /// Seconds the token command may take.
        var tokenTimeout = 15
    }

    /// `[usage] budget` / `--budget`: US dollars a conversation may spend before parley asks.
    var budget: Double?
    /// `[prices."MODEL"]`: prices that replace or fill in the shipped table.
    var priceOverrides: [PriceOverride] = []

    /// One `[prices."MODEL"]` table.
    struct PriceOverride: Sendable, Equatable {
        var model: String
        /// Nil: both backends.
        var backend: Backend?
        var prices: [PriceKind: Double]
        var date: String
        var source: String
    }

    /// The shipped list prices with the config's overrides.
    var priceTable: PriceTable {
        var table = PriceTable.published
        for o in priceOverrides {
            table.set(model: o.model, backend: o.backend, o.prices.mapValues { Price($0, date: o.date, source: o.source) })
        }
        return table
    }

    /// Where the conversation is served (Vertex AI for its endpoints), for prices.
    var backend: Backend { Backend.of(endpoint: endpoint) }

    struct ToolSettings: Sendable, Equatable {
        var currentTime = true
        var readFile = false
        var listDirectory = false
        var shell = false
        var allowedDirectories: [String] = []
        /// `[tools.scheduling]`: when a NON_BLOCKING tool's result reaches the model, by tool name.
        var scheduling: [String: ToolScheduling] = [:]
        /// Secret-looking environment variables tools may still see (see `ToolEnvironment`).
        var passEnv: [String] = []
        /// Seconds a tool call may take before it is answered with an error (`call_timeout`).
        var callTimeout = 60
        /// Seconds an MCP server may take to start (`mcp_start_timeout`); servers start in parallel.
        var mcpStartTimeout = 10
    }

    /// Reads a config file; a missing file is an empty config.
    static func load(path: String, required: Bool) throws -> Config {
        var config = Config()
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if required { throw ParleyError.file(path: path, problem: "cannot read the config file") }
            return config
        }
        try config.apply(toml: text, file: path)
        return config
    }

    mutating func apply(toml text: String, file: String) throws {
        if let p = TOMLSafety.problem(in: text) {
            throw ParleyError.config(file: file, line: p.line, key: "syntax", problem: p.message)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ParleyError.config(file: file, line: e.source.begin.line, key: "syntax", problem: e.description)
        }
        let reader = ConfigReader(text: text, file: file)
        let known: Set<String> = [
            "model", "voice", "system", "system_instruction", "mode", "endpoint", "api_key", "mic", "speaker", "theme",
            "echo_cancel", "playback_buffer_ms", "transcript_dir", "google_search", "log_file", "vad", "keys", "tools", "mcp",
            "thinking", "thinking_budget", "language", "affective_dialog", "proactive_audio",
            "vision", "vertex", "auth", "usage", "prices", "recording", "system_file", "persona",
        ]
        for key in table.keys where !known.contains(key) {
            throw reader.error(key, "unknown setting (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let v = try reader.string(table, "model") {
            model = v
            modelChosen = true
        }
        if let v = try reader.string(table, "voice") {
            guard let voice = Voice.named(v) else { throw reader.error("voice", "no voice named \(v) (see parley voices)") }
            self.voice = voice.name
            voiceChosen = true
        }
        if let v = try reader.string(table, "system") ?? reader.string(table, "system_instruction") { systemInstruction = v }
        if let path = try reader.string(table, "system_file") {
            if table["system"] != nil || table["system_instruction"] != nil {
                throw reader.error("system_file", "give system or system_file, not both")
            }
            let full = Self.path(path, besides: file)
            guard let text = try? String(contentsOfFile: full, encoding: .utf8) else { throw reader.error("system_file", "cannot read \(full)") }
            systemInstruction = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let v = try reader.string(table, "mode") {
            guard let m = Mode(rawValue: v) else { throw reader.error("mode", "must be \"ptt\" or \"open\"") }
            mode = m
        }
        if let v = try reader.string(table, "endpoint") { endpoint = v }
        if let v = try reader.string(table, "api_key") { apiKey = Secret(v) }
        if let v = try reader.string(table, "mic") { mic = v }
        if let v = try reader.string(table, "speaker") { speaker = v }
        if let v = try reader.string(table, "theme") { theme = v }
        if let v = try reader.string(table, "transcript_dir") { transcriptDir = v }
        if let v = try reader.string(table, "log_file") { logFile = v }
        if let v = table["echo_cancel"] {
            if let b = v.bool {
                echoCancel = EchoCancelMode(legacy: b)
            } else if let name = v.string, let m = EchoCancelMode(setting: name) {
                echoCancel = m
            } else {
                throw reader.error("echo_cancel", "must be one of \(EchoCancelMode.choices) (or true/false)")
            }
        }
        if let v = try reader.bool(table, "google_search") { googleSearch = v }
        if let v = try reader.int(table, "playback_buffer_ms", range: 10...2000) { playbackBufferMs = v }
        if let v = try reader.string(table, "thinking") { modelOptions.thinkingLevel = v.lowercased() }
        if let v = try reader.int(table, "thinking_budget", range: -1...32768) { modelOptions.thinkingBudget = v }
        if let v = try reader.string(table, "language") { modelOptions.languageCode = v }
        if let v = try reader.bool(table, "affective_dialog") { modelOptions.affectiveDialog = v }
        if let v = try reader.bool(table, "proactive_audio") { modelOptions.proactiveAudio = v }
        if let vad = try reader.table(table, "vad") {
            if let v = try reader.string(vad, "start_sensitivity", section: "vad") {
                guard ["high", "low"].contains(v.lowercased()) else { throw reader.error("start_sensitivity", "must be \"high\" or \"low\"", section: "vad") }
                startSensitivity = "START_SENSITIVITY_\(v.uppercased())"
            }
            if let v = try reader.string(vad, "end_sensitivity", section: "vad") {
                guard ["high", "low"].contains(v.lowercased()) else { throw reader.error("end_sensitivity", "must be \"high\" or \"low\"", section: "vad") }
                endSensitivity = "END_SENSITIVITY_\(v.uppercased())"
            }
            if let v = try reader.int(vad, "prefix_padding_ms", section: "vad", range: 0...5000) { prefixPaddingMs = v }
            if let v = try reader.int(vad, "silence_duration_ms", section: "vad", range: 0...10000) { silenceDurationMs = v }
        }
        if let t = try reader.table(table, "vision") { try vision.apply(t, reader: reader) }
        if let t = try reader.table(table, "recording") { try recording.apply(t, reader: reader) }
        if let t = try reader.table(table, "vertex") {
            for key in t.keys where !["enabled", "project", "location"].contains(key) {
                throw reader.error(key, "unknown setting (known: enabled, project, location)", section: "vertex")
            }
            vertex.enabled = try reader.bool(t, "enabled", section: "vertex") ?? true
            if let v = try reader.string(t, "project", section: "vertex") { vertex.project = v }
            if let v = try reader.string(t, "location", section: "vertex") { vertex.location = v }
        }
        if let t = try reader.table(table, "auth") {
            for key in t.keys where !["token_command", "token_timeout"].contains(key) {
                throw reader.error(key, "unknown setting (known: token_command, token_timeout)", section: "auth")
            }
            if let v = try reader.string(t, "token_command", section: "auth") {
                guard !v.trimmingCharacters(in: .whitespaces).isEmpty else { throw reader.error("token_command", "must not be empty", section: "auth") }
                auth.tokenCommand = v
            }
            if let v = try reader.int(t, "token_timeout", section: "auth", range: 1...600) { auth.tokenTimeout = v }
        }
        if let t = try reader.table(table, "usage") {
            for key in t.keys where key != "budget" { throw reader.error(key, "unknown setting (known: budget)", section: "usage") }
            if let v = t["budget"] {
                guard let d = v.double ?? v.int.map(Double.init), d.isFinite, d > 0 else {
                    throw reader.error("budget", "must be a positive amount of US dollars, e.g. 0.50", section: "usage")
                }
                budget = d
            }
        }
        if let t = try reader.table(table, "prices") { try applyPrices(t, reader: reader, file: file) }
        if let keyTable = try reader.table(table, "keys") {
            for action in keyTable.keys {
                guard let v = try reader.string(keyTable, action, section: "keys") else { continue }
                keys[action] = v
            }
        }
        if let list = table["mcp"] {
            guard let servers = list.array else { throw reader.error("mcp", "must be [[mcp]] tables with name, command and args") }
            mcp = []
            for (i, entry) in servers.enumerated() {
                guard let t = entry.table else { throw reader.error("mcp", "entry \(i + 1) must be a [[mcp]] table") }
                guard let command = try reader.string(t, "command", section: "mcp") else {
                    throw reader.error("mcp", "entry \(i + 1) needs command = \"…\"")
                }
                var server = MCPServerConfig(name: try reader.string(t, "name", section: "mcp") ?? command, command: command)
                if let a = t["args"] {
                    guard let arr = a.array else { throw reader.error("args", "must be a list of strings", section: "mcp") }
                    server.args = arr.compactMap { $0.string }
                }
                if let c = try reader.string(t, "confirm", section: "mcp") {
                    guard ["always", "never"].contains(c) else { throw reader.error("confirm", "must be \"always\" or \"never\"", section: "mcp") }
                    server.confirm = c == "always"
                }
                mcp.append(server)
            }
        }
        if let t = try reader.table(table, "tools") {
            if let v = try reader.bool(t, "get_current_time", section: "tools") { tools.currentTime = v }
            if let v = try reader.bool(t, "read_file", section: "tools") { tools.readFile = v }
            if let v = try reader.bool(t, "list_directory", section: "tools") { tools.listDirectory = v }
            if let v = try reader.bool(t, "run_shell_command", section: "tools") { tools.shell = v }
            if let a = t["allowed_directories"] {
                guard let arr = a.array else { throw reader.error("allowed_directories", "must be a list of paths", section: "tools") }
                tools.allowedDirectories = arr.compactMap { $0.string }
            }
            if let b = t["behavior"] {
                guard let bt = b.table else { throw reader.error("behavior", "must be a table ([tools.behavior]) of tool = \"blocking\" or \"non_blocking\"", section: "tools") }
                for name in bt.keys {
                    guard let v = try reader.string(bt, name, section: "tools.behavior"),
                        let behavior = LiveModel.FunctionBehavior(rawValue: v.uppercased())
                    else { throw reader.error(name, "must be \"blocking\" or \"non_blocking\"", section: "tools.behavior") }
                    modelOptions.functionBehaviors[name] = behavior
                }
            }
            if let sch = t["scheduling"] {
                guard let st = sch.table else { throw reader.error("scheduling", "must be a table ([tools.scheduling]) of tool = \"interrupt\", \"when_idle\" or \"silent\"", section: "tools") }
                for name in st.keys {
                    guard let v = try reader.string(st, name, section: "tools.scheduling"), let scheduling = ToolScheduling(rawValue: v.uppercased())
                    else { throw reader.error(name, "must be \"interrupt\", \"when_idle\" or \"silent\"", section: "tools.scheduling") }
                    tools.scheduling[name] = scheduling
                }
            }
            if let a = t["pass_env"] {
                guard let arr = a.array else { throw reader.error("pass_env", "must be a list of variable names", section: "tools") }
                tools.passEnv = arr.compactMap { $0.string }
            }
            if let v = try reader.int(t, "call_timeout", section: "tools", range: 1...86_400) { tools.callTimeout = v }
            if let v = try reader.int(t, "mcp_start_timeout", section: "tools", range: 1...600) { tools.mcpStartTimeout = v }
        }
        try applyPersonas(table, reader: reader, file: file)
        for i in mcp.indices {
            mcp[i].passEnv = tools.passEnv
            mcp[i].startTimeout = Double(tools.mcpStartTimeout)
            mcp[i].callTimeout = Double(tools.callTimeout)
        }
    }

    /// `[prices."MODEL"]` tables: `input_text = 0.75`, `output_audio = 12`, … per million tokens, with optional
    /// `backend` ("ai-studio" or "vertex"; both when absent), `date` and `source`.
    mutating func applyPrices(_ t: TOMLTable, reader: ConfigReader, file: String) throws {
        let kinds = Dictionary(uniqueKeysWithValues: PriceKind.all.map { ($0.configKey, $0) })
        for model in t.keys.sorted() {
            let section = "prices.\"\(model)\""
            guard let entry = t[model]?.table else {
                throw reader.error(model, "must be a table: [prices.\"\(model)\"] with input_text = …, output_audio = …", section: "prices")
            }
            var o = PriceOverride(model: model, backend: nil, prices: [:], date: "set in the config", source: (file as NSString).lastPathComponent)
            for key in entry.keys.sorted() {
                switch key {
                case "backend":
                    guard let v = try reader.string(entry, key, section: section), let b = Backend(rawValue: v.lowercased().replacingOccurrences(of: "_", with: "-")) else {
                        throw reader.error(key, "must be \"ai-studio\" or \"vertex\"", section: section)
                    }
                    o.backend = b
                case "date": o.date = try reader.string(entry, key, section: section) ?? o.date
                case "source": o.source = try reader.string(entry, key, section: section) ?? o.source
                default:
                    guard let kind = kinds[key] else {
                        throw reader.error(key, "unknown price (known: \(PriceKind.all.map(\.configKey).joined(separator: ", ")), backend, date, source)", section: section)
                    }
                    guard let v = entry[key], let d = v.double ?? v.int.map(Double.init), d.isFinite, d >= 0 else {
                        throw reader.error(key, "must be US dollars per million tokens, e.g. 0.75", section: section)
                    }
                    o.prices[kind] = d
                }
            }
            priceOverrides.append(o)
        }
    }

    /// The merged configuration as TOML, secrets redacted.
    var printed: String {
        func q(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\"" }
        var lines = [
            "model = \(q(model))", "voice = \(q(voice))", "mode = \(q(mode.rawValue))", "theme = \(q(theme))",
            "echo_cancel = \(q(echoCancel.rawValue))", "playback_buffer_ms = \(playbackBufferMs)", "google_search = \(googleSearch)",
        ]
        if let systemInstruction { lines.append("system = \(q(systemInstruction))") }
        if let v = modelOptions.thinkingLevel { lines.append("thinking = \(q(v))") }
        if let v = modelOptions.thinkingBudget { lines.append("thinking_budget = \(v)") }
        if let v = modelOptions.languageCode { lines.append("language = \(q(v))") }
        if let v = modelOptions.affectiveDialog { lines.append("affective_dialog = \(v)") }
        if let v = modelOptions.proactiveAudio { lines.append("proactive_audio = \(v)") }
        if let endpoint { lines.append("endpoint = \(q(endpoint))") }
        if apiKey != nil { lines.append("api_key = \"‹redacted›\"") }
        if let mic { lines.append("mic = \(q(mic))") }
        if let speaker { lines.append("speaker = \(q(speaker))") }
        if let transcriptDir { lines.append("transcript_dir = \(q(transcriptDir))") }
        if let logFile { lines.append("log_file = \(q(logFile))") }
        lines.append("\n[vad]")
        if let startSensitivity { lines.append("start_sensitivity = \(q(startSensitivity.components(separatedBy: "_").last?.lowercased() ?? ""))") }
        if let endSensitivity { lines.append("end_sensitivity = \(q(endSensitivity.components(separatedBy: "_").last?.lowercased() ?? ""))") }
        if let prefixPaddingMs { lines.append("prefix_padding_ms = \(prefixPaddingMs)") }
        if let silenceDurationMs { lines.append("silence_duration_ms = \(silenceDurationMs)") }
        lines.append("\n[tools]")
        lines.append("get_current_time = \(tools.currentTime)")
        lines.append("read_file = \(tools.readFile)")
        lines.append("list_directory = \(tools.listDirectory)")
        lines.append("run_shell_command = \(tools.shell)")
        lines.append("allowed_directories = [\(tools.allowedDirectories.map(q).joined(separator: ", "))]")
        if !modelOptions.functionBehaviors.isEmpty {
            lines.append("\n[tools.behavior]")
            for (k, v) in modelOptions.functionBehaviors.sorted(by: { $0.key < $1.key }) { lines.append("\(k) = \(q(v.rawValue.lowercased()))") }
        }
        if !tools.scheduling.isEmpty {
            lines.append("\n[tools.scheduling]")
            for (k, v) in tools.scheduling.sorted(by: { $0.key < $1.key }) { lines.append("\(k) = \(q(v.rawValue.lowercased()))") }
        }
        lines.append("call_timeout = \(tools.callTimeout)")
        lines.append("mcp_start_timeout = \(tools.mcpStartTimeout)")
        if !tools.passEnv.isEmpty { lines.append("pass_env = [\(tools.passEnv.map(q).joined(separator: ", "))]") }
        for server in mcp {
            lines.append("\n[[mcp]]")
            lines.append("name = \(q(server.name))")
            lines.append("command = \(q(server.command))")
            lines.append("args = [\(server.args.map(q).joined(separator: ", "))]")
            lines.append("confirm = \(q(server.confirm ? "always" : "never"))")
        }
        lines += vision.printed
        lines += recording.printed
        if vertex.enabled != nil || vertex.project != nil || vertex.location != nil {
            lines.append("\n[vertex]")
            if let v = vertex.enabled { lines.append("enabled = \(v)") }
            if let v = vertex.project { lines.append("project = \(q(v))") }
            if let v = vertex.location { lines.append("location = \(q(v))") }
        }
        if let command = auth.tokenCommand {
            lines.append("\n[auth]")
            lines.append("token_command = \(q(command))")
            lines.append("token_timeout = \(auth.tokenTimeout)")
        }
        if let budget {
            lines.append("\n[usage]")
            lines.append("budget = \(budget)")
        }
        for o in priceOverrides {
            lines.append("\n[prices.\(q(o.model))]")
            if let b = o.backend { lines.append("backend = \(q(b.rawValue))") }
            for (k, v) in o.prices.sorted(by: { $0.key < $1.key }) { lines.append("\(k.configKey) = \(v)") }
            lines.append("date = \(q(o.date))")
            lines.append("source = \(q(o.source))")
        }
        for p in personas {
            lines.append("\n[[persona]]")
            lines.append("name = \(q(p.name))")
            if let v = p.system { lines.append("system = \(q(v))") }
            if let v = p.voice { lines.append("voice = \(q(v))") }
            if let v = p.thinking { lines.append("thinking = \(q(v))") }
            if let v = p.greeting { lines.append("greeting = \(q(v))") }
            if !p.tools.isEmpty {
                lines.append("tools = { \(p.tools.sorted { $0.key < $1.key }.map { "\(q($0.key)) = \($0.value)" }.joined(separator: ", ")) }")
            }
        }
        if let persona { lines.append("\n# started as persona \(q(persona))") }
        if !keys.isEmpty {
            lines.append("\n[keys]")
            for (k, v) in keys.sorted(by: { $0.key < $1.key }) { lines.append("\(k) = \(q(v))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Typed access to TOML values with errors that name the file, line and key.
struct ConfigReader {
    let text: String
    let file: String

    func error(_ key: String, _ problem: String, section: String? = nil) -> ParleyError {
        .config(file: file, line: line(of: key, section: section), key: section.map { "\($0).\(key)" } ?? key, problem: problem)
    }

    /// The line where `key =` is set (inside `[section]` when given). TOMLKit does not report value positions.
    func line(of key: String, section: String?) -> Int? {
        var current: String?
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let l = raw.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("[") {
                current = l.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                continue
            }
            guard current == section else { continue }
            if l.hasPrefix(key), l.dropFirst(key.count).trimmingCharacters(in: .whitespaces).hasPrefix("=") { return i + 1 }
        }
        return nil
    }

    func string(_ t: TOMLTable, _ key: String, section: String? = nil) throws -> String? {
        guard let v = t[key] else { return nil }
        guard let s = v.string else { throw error(key, "must be a string in quotes", section: section) }
        return s
    }

    func bool(_ t: TOMLTable, _ key: String, section: String? = nil) throws -> Bool? {
        guard let v = t[key] else { return nil }
        guard let b = v.bool else { throw error(key, "must be true or false", section: section) }
        return b
    }

    func int(_ t: TOMLTable, _ key: String, section: String? = nil, range: ClosedRange<Int>) throws -> Int? {
        guard let v = t[key] else { return nil }
        guard let i = v.int else { throw error(key, "must be a whole number", section: section) }
        guard range.contains(i) else { throw error(key, "must be between \(range.lowerBound) and \(range.upperBound)", section: section) }
        return i
    }

    func table(_ t: TOMLTable, _ key: String) throws -> TOMLTable? {
        guard let v = t[key] else { return nil }
        guard let tt = v.table else { throw error(key, "must be a table ([\(key)])") }
        return tt
    }
}
