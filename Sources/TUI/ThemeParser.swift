import TOMLKit

/// Parses theme TOML text into a `Theme`.
public enum ThemeParser {
    /// Parses `text` (from `file`, used in errors). Roles not given are taken from `base` (the default theme
    /// when nil).
    public static func parse(text: String, file: String, base: Theme? = Theme.default) -> Result<Theme, ThemeError> {
        if let p = TOMLSafety.problem(in: text) {
            return .failure(.syntax(file: file, line: p.line, column: p.column, message: p.message))
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            return .failure(.syntax(file: file, line: e.source.begin.line, column: e.source.begin.column, message: e.description))
        } catch {
            return .failure(.syntax(file: file, line: 1, column: 1, message: "\(error)"))
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func lineOf(_ role: String) -> Int {
            for (i, l) in lines.enumerated() {
                let t = l.drop(while: { $0 == " " || $0 == "\t" })
                for key in [role, "\"\(role)\""] where t.hasPrefix(key) {
                    let rest = t.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" })
                    if rest.hasPrefix("=") { return i + 1 }
                }
                if t.hasPrefix("[roles.\(role)]") { return i + 1 }
            }
            return 1
        }
        var styles = base?.styles ?? [:]
        let name = table["name"]?.string ?? file
        guard let roles = table["roles"] else { return .success(Theme(name: name, styles: styles)) }
        guard let rolesTable = roles.table else {
            return .failure(.badRole(file: file, line: lineOf("roles"), role: "roles", message: "must be a table"))
        }
        for key in rolesTable.keys.sorted(by: { lineOf($0) < lineOf($1) }) {
            guard let role = Role(rawValue: key) else {
                return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "unknown role (known: \(Role.allCases.map(\.rawValue).joined(separator: ", ")))"))
            }
            guard let entry = rolesTable[key]?.table else {
                return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "must be a table like { fg = \"red\" }"))
            }
            var style = CellStyle()
            for field in entry.keys {
                guard let value = entry[field] else { continue }
                switch field {
                case "fg", "bg":
                    let color: Color?
                    if let i = value.int { color = (0...255).contains(i) ? .index(UInt8(i)) : nil } else if let s = value.string { color = Color.parse(s) } else { color = nil }
                    guard let color else {
                        return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "\(field) = \(value.debugDescription) is not a colour name, 0-255 or #rrggbb"))
                    }
                    if field == "fg" { style.fg = color } else { style.bg = color }
                case "attrs":
                    guard let array = value.array else {
                        return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "attrs must be an array of strings"))
                    }
                    for item in array {
                        guard let s = item.string, let a = TextAttributes.names[s.lowercased()] else {
                            return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "unknown attribute \(item.debugDescription)"))
                        }
                        style.attributes.insert(a)
                    }
                default:
                    return .failure(.badRole(file: file, line: lineOf(key), role: key, message: "unknown field \"\(field)\" (use fg, bg, attrs)"))
                }
            }
            styles[role] = style
        }
        return .success(Theme(name: name, styles: styles))
    }
}
