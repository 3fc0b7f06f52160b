/// Why a theme could not be loaded. Every case names the file; role errors name the line and role.
public enum ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file `<name>.toml` in any searched directory.
    case notFound(name: String, searched: [String])
    /// The file exists but could not be read.
    case unreadable(file: String)
    /// The file is not valid TOML.
    case syntax(file: String, line: Int, column: Int, message: String)
    /// A role entry is wrong: unknown role, bad colour, bad attribute or wrong type.
    case badRole(file: String, line: Int, role: String, message: String)

    /// A one-line human message.
    public var message: String {
        switch self {
        case .notFound(let name, let searched):
            return "theme \"\(name)\" not found (looked in \(searched.isEmpty ? "no directories" : searched.joined(separator: ", ")))"
        case .unreadable(let file): return "\(file): cannot be read"
        case .syntax(let file, let line, let column, let message): return "\(file):\(line):\(column): \(message)"
        case .badRole(let file, let line, let role, let message): return "\(file):\(line): role \"\(role)\": \(message)"
        }
    }

    /// What to do about it.
    public var hint: String {
        switch self {
        case .notFound: return "put <name>.toml in $XDG_CONFIG_HOME/parley/themes/ or pick one of default, light, high-contrast, mono; using default"
        case .unreadable: return "check the file's permissions; using the default theme"
        case .syntax: return "fix the TOML syntax; using the default theme"
        case .badRole:
            return "roles take { fg = \"name\"|0-255|\"#rrggbb\", bg = …, attrs = [\"bold\", \"dim\", \"underline\", \"reverse\", \"italic\"] }; using the default theme"
        }
    }

    public var description: String { "\(message) (\(hint))" }
}
