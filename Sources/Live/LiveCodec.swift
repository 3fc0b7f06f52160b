import Foundation

/// Turns messages into frames and back. The client sends text frames of JSON; the server may answer with
/// text or binary frames holding UTF-8 JSON.
public struct LiveCodec: Sendable {
    public init() {}

    /// Encodes a client message as the text of one frame.
    public func encode(_ message: ClientMessage) throws -> String {
        // Mic audio is the hot path (50 frames a second): build it by hand, no encoder round trip.
        if case .realtimeInput(.audio(let blob)) = message {
            return Self.audioFrame(mimeType: blob.mimeType, data: blob.data)
        }
        return try Self.jsonText(message)
    }

    /// Decodes a server frame's bytes.
    public func decodeServer(_ bytes: Data) throws -> ServerMessage {
        if let audio = ReplyAudioFrame.decode(bytes) { return audio }
        if let transcript = TranscriptFrame.decode(bytes) { return transcript }
        do {
            return try ProtoJSON.decoder().decode(ServerMessage.self, from: bytes)
        } catch {
            throw LiveProtocolError.malformedServerMessage(Self.describe(error))
        }
    }

    /// Decodes a client frame (the simulator's side).
    public func decodeClient(_ bytes: Data) throws -> ClientMessage {
        do {
            return try ProtoJSON.decoder().decode(ClientMessage.self, from: bytes)
        } catch let e as LiveProtocolError {
            throw e
        } catch {
            throw LiveProtocolError.invalidClientMessage(Self.describe(error))
        }
    }

    /// Encodes a server message (the simulator's side) the way the service does: pretty-printed with two-space
    /// indents and a trailing newline.
    /// `usageNaming` picks the backend whose usage field names are written.
    public func encode(_ message: ServerMessage, usageNaming: UsageMetadata.Naming = .aiStudio) throws -> String {
        ProtoJSON.prettyPrinted(try Self.jsonText(message, usageNaming: usageNaming))
    }

    static func jsonText(_ value: some Encodable, usageNaming: UsageMetadata.Naming = .aiStudio) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[UsageMetadata.namingKey] = usageNaming
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The mic frame's JSON, made in one string: the base64 written straight into it.
    static func audioFrame(mimeType: String, data: Data) -> String {
        let head: StaticString = #"{"realtimeInput":{"audio":{"data":""#
        let middle: StaticString = #"","mimeType":""#
        let tail: StaticString = #""}}}"#
        let count = head.utf8CodeUnitCount + Base64.encodedCount(data.count) + middle.utf8CodeUnitCount
            + mimeType.utf8.count + tail.utf8CodeUnitCount
        return String(unsafeUninitializedCapacity: count) { out in
            var j = 0
            func put(_ text: StaticString) {
                (out.baseAddress! + j).initialize(from: text.utf8Start, count: text.utf8CodeUnitCount)
                j += text.utf8CodeUnitCount
            }
            put(head)
            j += data.withUnsafeBytes { Base64.encode($0, into: out.baseAddress! + j) }
            put(middle)
            for byte in mimeType.utf8 {
                out[j] = byte
                j += 1
            }
            put(tail)
            return j
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): "data corrupted at \(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.keyNotFound(let k, let c): "missing \(k.stringValue) at \(path(c.codingPath))"
        case DecodingError.typeMismatch(let t, let c): "expected \(t) at \(path(c.codingPath))"
        case DecodingError.valueNotFound(let t, let c): "missing \(t) at \(path(c.codingPath))"
        default: "\(error)"
        }
    }

    static func path(_ p: [any CodingKey]) -> String {
        p.isEmpty ? "top level" : p.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// Protocol-level errors: something on the wire was not what the protocol allows.
public enum LiveProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformedServerMessage(String)
    case invalidClientMessage(String)

    public var description: String {
        switch self {
        case .malformedServerMessage(let d): "the server sent a message parley could not read (\(d))"
        case .invalidClientMessage(let d): "invalid client message: \(d)"
        }
    }
}
