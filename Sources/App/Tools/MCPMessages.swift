import Foundation
import Live

/// The JSON-RPC 2.0 messages of MCP's client side (spec 2025-11-25), as far as parley uses them: initialize,
/// tools/list, tools/call, and answering the server's own requests.
enum MCP {
    /// The protocol version parley asks for; a server may answer with an older one it speaks.
    static let protocolVersion = "2025-11-25"

    /// A request id: MCP allows a number or a string (parley sends numbers; a server's requests may use either).
    enum ID: Codable, Hashable, Sendable, CustomStringConvertible {
        case number(Int64)
        case string(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Int64.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .number(let n): try c.encode(n)
            case .string(let s): try c.encode(s)
            }
        }

        var description: String {
            switch self {
            case .number(let n): return "\(n)"
            case .string(let s): return "\"\(s)\""
            }
        }
    }

    /// A JSON-RPC error object.
    struct ErrorObject: Codable, Sendable, Equatable {
        var code: Int
        var message: String
        var data: JSONValue?

        static let methodNotFound = -32601

        init(code: Int, message: String, data: JSONValue? = nil) { (self.code, self.message, self.data) = (code, message, data) }

        /// Lenient: an error without a code or message is still the answer to its request.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            code = (try? c.decode(Int.self, forKey: .code)) ?? 0
            message = (try? c.decode(String.self, forKey: .message)) ?? "(no message)"
            data = try? c.decodeIfPresent(JSONValue.self, forKey: .data)
        }
    }

    /// What one line from the server is, as far as routing it needs: the typed result is decoded by the request
    /// that waits for it (`result(_:as:)`).
    enum Incoming: Sendable, Equatable {
        /// The answer to one of parley's requests: a result, or the server's error.
        case response(ID, error: ErrorObject?)
        /// The server asks something of parley (e.g. `ping`) and waits for an answer.
        case request(ID, method: String)
        case notification(method: String)
        /// Valid JSON, but no message parley can route (an error with a null id, a batch, …).
        case unroutable(String)

        private struct Envelope: Decodable {
            var jsonrpc: String?
            var id: ID?
            var method: String?
            var error: ErrorObject?
        }

        /// Reads one line. Throws when it is not a JSON object.
        init(line: Data) throws {
            if line.first(where: { !$0.isWhitespace }) == UInt8(ascii: "[") {
                self = .unroutable("a batch (MCP has none since 2025-06-18)")
                return
            }
            let e = try JSONDecoder().decode(Envelope.self, from: line)
            switch (e.id, e.method) {
            case (let id?, let method?): self = .request(id, method: method)
            case (nil, let method?): self = .notification(method: method)
            case (let id?, nil): self = .response(id, error: e.error)
            case (nil, nil):
                self = .unroutable(e.error.map { "error \($0.code) without a request id: \($0.message)" } ?? "neither a method nor an id")
            }
        }
    }

    private struct ResultEnvelope<R: Decodable>: Decodable { var result: R }

    /// The typed `result` of a response line.
    static func result<R: Decodable>(_ line: Data, as type: R.Type) throws -> R {
        try JSONDecoder().decode(ResultEnvelope<R>.self, from: line).result
    }

    /// A request or notification parley sends.
    struct Outgoing: Encodable {
        var jsonrpc = "2.0"
        var id: ID?
        var method: String
        var params: JSONValue?
    }

    /// A response parley sends to the server's request.
    struct Reply: Encodable {
        var jsonrpc = "2.0"
        var id: ID
        var result: JSONValue?
        var error: ErrorObject?
    }

    struct Implementation: Codable, Sendable, Equatable {
        var name: String
        var version: String
    }

    /// `initialize`'s result.
    struct InitializeResult: Decodable, Sendable {
        var protocolVersion: String
        var serverInfo: Implementation?
        var instructions: String?
    }

    /// One tool a server offers.
    struct Tool: Decodable, Sendable, Equatable {
        var name: String
        var title: String?
        var description: String?
        /// A JSON Schema object; `{}` when the server left it out.
        var inputSchema: JSONValue

        private enum CodingKeys: String, CodingKey { case name, title, description, inputSchema }

        init(name: String, title: String? = nil, description: String? = nil, inputSchema: JSONValue = [:]) {
            (self.name, self.title, self.description, self.inputSchema) = (name, title, description, inputSchema)
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            inputSchema = try c.decodeIfPresent(JSONValue.self, forKey: .inputSchema) ?? [:]
        }
    }

    /// One page of `tools/list`.
    struct ToolsPage: Decodable, Sendable {
        var tools: [Tool]
        var nextCursor: String?
    }

    /// One item of a tool's result. Binary data is not kept: parley hands the model text and names the rest.
    enum Content: Decodable, Sendable, Equatable {
        case text(String)
        case image(mimeType: String)
        case audio(mimeType: String)
        /// An embedded resource: its URI, and its text when it is a text resource.
        case resource(uri: String, text: String?)
        case resourceLink(uri: String, name: String?)
        /// A kind parley does not know (or a known kind missing a field), kept as a placeholder.
        case other(type: String)

        private enum CodingKeys: String, CodingKey { case type, text, mimeType, resource, uri, name }
        private struct Resource: Decodable { var uri: String; var text: String? }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let type = (try? c.decode(String.self, forKey: .type)) ?? ""
            let decoded: Content?
            switch type {
            case "text": decoded = (try? c.decode(String.self, forKey: .text)).map(Content.text)
            case "image": decoded = (try? c.decode(String.self, forKey: .mimeType)).map { .image(mimeType: $0) }
            case "audio": decoded = (try? c.decode(String.self, forKey: .mimeType)).map { .audio(mimeType: $0) }
            case "resource": decoded = (try? c.decode(Resource.self, forKey: .resource)).map { .resource(uri: $0.uri, text: $0.text) }
            case "resource_link":
                decoded = (try? c.decode(String.self, forKey: .uri)).map { .resourceLink(uri: $0, name: try? c.decode(String.self, forKey: .name)) }
            default: decoded = nil
            }
            self = decoded ?? .other(type: type)
        }
    }

    /// `tools/call`'s result.
    struct CallResult: Decodable, Sendable, Equatable {
        var content: [Content]
        var isError: Bool

        private enum CodingKeys: String, CodingKey { case content, isError }

        init(content: [Content], isError: Bool = false) { (self.content, self.isError) = (content, isError) }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            content = try c.decodeIfPresent([Content].self, forKey: .content) ?? []
            isError = try c.decodeIfPresent(Bool.self, forKey: .isError) ?? false
        }
    }
}

extension UInt8 {
    fileprivate var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
