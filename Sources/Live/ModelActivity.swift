/// What the model did besides talking, for the tool log: code it ran and what it searched for.
public enum ModelActivity: Sendable, Equatable {
    /// An `executableCode` part.
    case code(language: String, code: String)
    /// A `codeExecutionResult` part.
    case codeResult(outcome: String, output: String)
    /// `groundingMetadata`: the search queries and the sources the answer rests on (title and address).
    case grounding(queries: [String], sources: [String])

    /// The activities of one part, if any.
    static func of(_ part: Part) -> [ModelActivity] {
        var out: [ModelActivity] = []
        if let c = part.executableCode { out.append(.code(language: c.language ?? "", code: c.code ?? "")) }
        if let r = part.codeExecutionResult { out.append(.codeResult(outcome: r.outcome ?? "", output: r.output ?? "")) }
        return out
    }

    /// Reads `groundingMetadata` (`webSearchQueries`, `groundingChunks[].web {title, uri}`); nil when it names
    /// neither a query nor a source.
    public static func grounding(_ metadata: JSONValue) -> ModelActivity? {
        let queries = metadata.field("webSearchQueries").flatMap { v -> [String]? in
            if case .array(let a) = v { return a.compactMap(\.stringValue) } else { return nil }
        } ?? []
        var sources: [String] = []
        if case .array(let chunks)? = metadata.field("groundingChunks") {
            for chunk in chunks {
                guard let web = chunk["web"] ?? chunk.field("retrievedContext") else { continue }
                let title = web["title"]?.stringValue ?? web["domain"]?.stringValue
                let uri = web["uri"]?.stringValue
                let line = [title, uri].compactMap { $0 }.joined(separator: " — ")
                if !line.isEmpty { sources.append(line) }
            }
        }
        guard !queries.isEmpty || !sources.isEmpty else { return nil }
        return .grounding(queries: queries, sources: sources)
    }
}

extension JSONValue {
    /// A field of a free-form object by its lowerCamelCase name or its snake_case twin (proto3 JSON takes
    /// both, and keys inside a `JSONValue` are not renamed on decoding).
    func field(_ camel: String) -> JSONValue? {
        if let v = self[camel] { return v }
        let snake = camel.reduce(into: "") { out, ch in
            if ch.isUppercase { out += "_" + ch.lowercased() } else { out.append(ch) }
        }
        return self[snake]
    }

    /// `interactionStatus` as one line: the string itself, or an object's status field.
    var interactionStatusText: String? {
        switch self {
        case .string(let s): return s
        case .object(let o):
            for key in ["status", "state", "message", "description"] {
                if let s = o[key]?.stringValue { return s }
            }
            return o.isEmpty ? nil : compactText
        case .null: return nil
        default: return compactText
        }
    }
}
