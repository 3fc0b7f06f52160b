import Foundation

/// proto3 JSON as the service speaks it: it accepts both lowerCamelCase and the original snake_case field names
/// (the official Python SDK sends `voice_config`, `client_content`), and it pretty-prints what it sends.
public enum ProtoJSON {
    /// Fields whose values are the user's own JSON (function arguments, results, schemas): their keys are data,
    /// never renamed.
    static let freeFormFields: Set<String> = [
        "args", "response", "parameters", "parametersJsonSchema", "parameters_json_schema", "responseJsonSchema",
        "response_json_schema", "responseSchema", "response_schema",
    ]

    /// A decoder that reads snake_case field names as their lowerCamelCase twins.
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .custom(camelCaseKey)
        return d
    }

    @Sendable static func camelCaseKey(_ path: [any CodingKey]) -> any CodingKey {
        guard let last = path.last else { return AnyKey("") }
        if path.dropLast().contains(where: { freeFormFields.contains($0.stringValue) }) { return last }
        return AnyKey(camelCase(last.stringValue))
    }

    /// `voice_config` → `voiceConfig`; names without an inner underscore are returned unchanged.
    public static func camelCase(_ name: String) -> String {
        // A byte search: `contains("_")` on a String is Foundation's substring search, run for every key decoded.
        guard name.utf8.contains(UInt8(ascii: "_")), let first = name.firstIndex(where: { $0 != "_" }) else { return name }
        let parts = name[first...].split(separator: "_", omittingEmptySubsequences: true)
        guard let head = parts.first else { return name }
        return String(name[..<first]) + head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Re-indents compact JSON with two-space indents, `"key": value`, and a trailing newline.
    public static func prettyPrinted(_ compact: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(compact.utf8.count + compact.utf8.count / 8)
        var depth = 0
        var inString = false
        var escaped = false
        let bytes = Array(compact.utf8)
        func newline() {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            defer { i += 1 }
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""):
                inString = true
                out.append(b)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(b)
                let close = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i + 1 < bytes.count, bytes[i + 1] == close {
                    out.append(close)
                    i += 1
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(b)
            case UInt8(ascii: ","):
                out.append(b)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [b, UInt8(ascii: " ")])
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            default:
                out.append(b)
            }
        }
        out.append(UInt8(ascii: "\n"))
        return String(decoding: out, as: UTF8.self)
    }
}
