import Foundation

/// The frame that carries reply audio, about 25 a second for as long as the model speaks:
/// `{"serverContent":{"modelTurn":{"role":"model","parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000",
/// "data":"…"}}]}}}`, pretty-printed or not, in lowerCamelCase or snake_case. Read in one pass over the bytes,
/// the base64 decoded straight from them: no key strategy, no strings built to be thrown away.
///
/// Only that shape is read here; anything else (another field, a duplicate key, an escape, a non-ASCII byte,
/// `null`, a bad base64 payload) returns nil and the frame goes to the full decoder, which gives the same
/// message for the frames read here (ReplyAudioFrameTests compares them) and the errors for the rest.
enum ReplyAudioFrame {
    static func decode(_ bytes: Data) -> ServerMessage? {
        bytes.withUnsafeBytes { raw -> ServerMessage? in
            var reader = FrameReader(bytes: raw.bindMemory(to: UInt8.self))
            guard let content = reader.frame(), reader.atEnd else { return nil }
            return ServerMessage(serverContent: ServerContent(modelTurn: content))
        }
    }
}

extension FrameReader {
    /// `{"serverContent":{"modelTurn":…}}`, each object with that one key.
    mutating func frame() -> Content? {
        guard take(UInt8(ascii: "{")), let k1 = plainString(), key(k1, "serverContent", "server_content"),
              take(UInt8(ascii: ":")), take(UInt8(ascii: "{")),
              let k2 = plainString(), key(k2, "modelTurn", "model_turn"), take(UInt8(ascii: ":")),
              let turn = modelTurn(), take(UInt8(ascii: "}")), take(UInt8(ascii: "}"))
        else { return nil }
        return turn
    }

    /// `{"role":"model","parts":[…]}`: `parts` once, `role` at most once, nothing else.
    mutating func modelTurn() -> Content? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var role: String?
        var parts: [Part]?
        repeat {
            guard let k = plainString(), take(UInt8(ascii: ":")) else { return nil }
            if key(k, "role", "role"), role == nil, let r = plainString() {
                role = string(r)
            } else if key(k, "parts", "parts"), parts == nil, let p = audioParts() {
                parts = p
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let parts else { return nil }
        return Content(role: role, parts: parts)
    }

    /// `[{"inlineData":{…}}, …]`.
    mutating func audioParts() -> [Part]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var parts: [Part] = []
        if take(UInt8(ascii: "]")) { return parts }
        repeat {
            guard take(UInt8(ascii: "{")), let k = plainString(), key(k, "inlineData", "inline_data"),
                  take(UInt8(ascii: ":")), let blob = blob(), take(UInt8(ascii: "}"))
            else { return nil }
            parts.append(Part(inlineData: blob))
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? parts : nil
    }

    /// `{"mimeType":"…","data":"…"}`: `data` once, `mimeType` at most once, nothing else.
    mutating func blob() -> Blob? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var mimeType: String?
        var data: Data?
        repeat {
            guard let k = plainString(), take(UInt8(ascii: ":")) else { return nil }
            if key(k, "mimeType", "mime_type"), mimeType == nil, let m = plainString() {
                mimeType = string(m)
            } else if key(k, "data", "data"), data == nil, let d = base64String(),
                      let decoded = Base64.decodeCanonical(UnsafeBufferPointer(rebasing: bytes[d])) {
                data = decoded
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let data else { return nil }
        return Blob(mimeType: mimeType ?? "", data: data)
    }
}
