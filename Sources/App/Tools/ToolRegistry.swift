import Foundation
import ParleyTime
import Live

/// A function the model may call.
struct ToolDefinition: Sendable {
    var name: String
    var description: String
    /// JSON schema of the arguments.
    var parameters: JSONValue
    /// Runs the call; returns the `response` object for `toolResponse`.
    var run: @Sendable (JSONValue) async throws -> JSONValue
    /// For tools the user must approve each time: the exact text to show them (e.g. the command).
    var confirmation: (@Sendable (JSONValue) -> String)?
    /// The MCP server that runs it; nil for built-in tools.
    var server: String?
    /// The tool's own `behavior`; nil leaves it to the config and the model's default.
    var behavior: LiveModel.FunctionBehavior?
    /// When its result reaches the model when it runs NON_BLOCKING; nil leaves it to the config.
    var scheduling: ToolScheduling?
    /// For long tools: runs the call and reports partial results on the way (sent with `willContinue`).
    var runReporting: (@Sendable (JSONValue, _ partial: @escaping @Sendable (JSONValue) -> Void) async throws -> JSONValue)?

    init(name: String, description: String, parameters: JSONValue, run: @escaping @Sendable (JSONValue) async throws -> JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.run = run
    }

    var declaration: FunctionDeclaration {
        FunctionDeclaration(name: name, description: description, parameters: parameters, behavior: behavior?.rawValue)
    }
}

/// The tools parley declares in `setup` and runs when the model calls them.
struct ToolRegistry: Sendable {
    private(set) var tools: [String: ToolDefinition] = [:]
    /// Seconds any call may take before it is stopped and answered with an error (`[tools] call_timeout`).
    var callTimeout: Double = 60
    /// The clock call timeouts are measured on (the app's).
    var time: TimeSource = .monotonic

    mutating func register(_ tool: ToolDefinition) { tools[tool.name] = tool }

    /// The same registry with only the tools `keep` accepts.
    func keeping(_ keep: (ToolDefinition) -> Bool) -> ToolRegistry {
        var r = self
        r.tools = tools.filter { keep($0.value) }
        return r
    }

    /// The MCP server a tool belongs to, for the log.
    func server(of name: String) -> String? { tools[name]?.server }

    /// What the user must approve before this call runs, if anything.
    func confirmation(for call: FunctionCall) -> String? { tools[call.name]?.confirmation?(call.args) }

    /// The `tools` entry for `setup` (nil when no function is declared).
    var declarations: [Tool] {
        tools.isEmpty ? [] : [Tool(functionDeclarations: tools.values.map(\.declaration).sorted { $0.name < $1.name })]
    }

    /// The scheduling a tool asks for itself, if any.
    func scheduling(of name: String) -> ToolScheduling? { tools[name]?.scheduling }

    /// Runs every call of one `toolCall` concurrently and answers each with its id: a result, or a structured
    /// error the model can explain (unknown tool, failure). `partial` gets the partial results of long tools.
    func answer(
        _ calls: [FunctionCall], partial: @escaping @Sendable (FunctionCall, JSONValue) -> Void = { _, _ in }
    ) async -> [FunctionResponse] {
        await withTaskGroup(of: (Int, FunctionResponse).self) { group in
            for (i, call) in calls.enumerated() {
                group.addTask {
                    guard let tool = tools[call.name] else {
                        return (i, FunctionResponse(id: call.id, name: call.name, response: ["error": .string("unknown tool \(call.name)")]))
                    }
                    do {
                        let result = try await withTimeout(callTimeout, what: call.name, time: time) { () async throws -> JSONValue in
                            if let run = tool.runReporting { return try await run(call.args) { partial(call, $0) } }
                            return try await tool.run(call.args)
                        }
                        return (i, FunctionResponse(id: call.id, name: call.name, response: result))
                    } catch {
                        return (i, FunctionResponse(id: call.id, name: call.name, response: ["error": .string("\(error)")]))
                    }
                }
            }
            var out: [(Int, FunctionResponse)] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The built-in tools the configuration enables.
    static func builtIn(_ settings: Config.ToolSettings, time: TimeSource = .monotonic) -> ToolRegistry {
        var r = ToolRegistry()
        r.time = time
        r.callTimeout = Double(settings.callTimeout)
        if settings.currentTime { r.register(.currentTime) }
        let files = FileTools(allowed: settings.allowedDirectories)
        if settings.readFile { r.register(.readFile(files)) }
        if settings.listDirectory { r.register(.listDirectory(files)) }
        if settings.shell { r.register(.shell(ShellTool(environment: ToolEnvironment.clean(passing: settings.passEnv), time: time))) }
        return r
    }
}

extension ToolDefinition {
    /// `get_current_time`: the local date, time and time zone.
    static let currentTime = ToolDefinition(
        name: "get_current_time",
        description: "Returns the current local date, time and time zone of the user.",
        parameters: ["type": "object", "properties": .object([:])]
    ) { _ in
        // The wall clock is what this tool reports.
        let now = Date(timeIntervalSince1970: TimeSource.wallSeconds())
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXX"
        let spoken = DateFormatter()
        spoken.locale = Locale(identifier: "en_US_POSIX")
        spoken.dateFormat = "h:mm a, EEEE d MMMM yyyy"
        return ["iso8601": .string(f.string(from: now)), "local": .string(spoken.string(from: now)),
                "timeZone": .string(TimeZone.current.identifier)]
    }
}
