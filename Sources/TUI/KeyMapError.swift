/// Why a key override was rejected.
public enum KeyMapError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case badKey(command: String, key: String)

    public var message: String {
        switch self {
        case .unknownCommand(let c): return "unknown command \"\(c)\""
        case .badKey(let c, let k): return "command \"\(c)\": cannot read key \"\(k)\""
        }
    }

    public var hint: String {
        switch self {
        case .unknownCommand: return "commands: " + Command.allCases.map(\.rawValue).joined(separator: ", ")
        case .badKey: return "write keys like q, ?, Space, PgUp, F5, C-c, M-x"
        }
    }

    public var description: String { "\(message) (\(hint))" }
}
