import Foundation

/// The frames that carry transcript fragments, several a second while either side speaks:
/// `{"serverContent":{"outputTranscription":{"text":" Where"}}}` (or `inputTranscription`, which may carry `finished`),
/// pretty-printed or not, in lowerCamelCase or snake_case. Read in one pass like `ReplyAudioFrame`, with no decoder,
/// key strategy or container boxes; anything else (another field, a duplicate key, an escape, a control byte, bytes
/// that are not UTF-8, `null`) returns nil and the frame goes to the full decoder, which gives the same message for
/// the frames read here (TranscriptFrameTests compares them) and the errors for the rest.
enum TranscriptFrame {
    static func decode(_ bytes: Data) -> ServerMessage? {
        bytes.withUnsafeBytes { raw -> ServerMessage? in
            var reader = FrameReader(bytes: raw.bindMemory(to: UInt8.self))
            guard reader.take(UInt8(ascii: "{")), let k1 = reader.plainString(), reader.key(k1, "serverContent", "server_content"),
                  reader.take(UInt8(ascii: ":")), reader.take(UInt8(ascii: "{")),
                  let k2 = reader.plainString(), reader.take(UInt8(ascii: ":"))
            else { return nil }
            let output = reader.key(k2, "outputTranscription", "output_transcription")
            guard output || reader.key(k2, "inputTranscription", "input_transcription"),
                  let transcription = reader.transcription(), reader.take(UInt8(ascii: "}")), reader.take(UInt8(ascii: "}")),
                  reader.atEnd
            else { return nil }
            return ServerMessage(serverContent: output ? ServerContent(outputTranscription: transcription)
                                                       : ServerContent(inputTranscription: transcription))
        }
    }
}

extension FrameReader {
    /// `{"text":"…","finished":true}`: each at most once, in either order, nothing else.
    mutating func transcription() -> Transcription? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var transcription = Transcription()
        if take(UInt8(ascii: "}")) { return transcription }
        var sawText = false, sawFinished = false
        repeat {
            guard let k = plainString(), take(UInt8(ascii: ":")) else { return nil }
            if key(k, "text", "text"), !sawText, let text = text() {
                transcription.text = text
                sawText = true
            } else if key(k, "finished", "finished"), !sawFinished, let finished = boolean() {
                transcription.finished = finished
                sawFinished = true
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? transcription : nil
    }

    /// A string with no escape and no control byte, as text; nil unless its bytes are UTF-8.
    mutating func text() -> String? {
        guard take(UInt8(ascii: "\"")), let base = bytes.baseAddress, i <= bytes.count,
              let quote = memchr(base + i, Int32(UInt8(ascii: "\"")), bytes.count - i) else { return nil }
        let start = i, end = UnsafeRawPointer(quote) - UnsafeRawPointer(base)
        for k in start..<end where bytes[k] < 0x20 || bytes[k] == UInt8(ascii: "\\") { return nil }
        i = end + 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// `true` or `false`.
    mutating func boolean() -> Bool? {
        skipSpace()
        if follows("true") {
            i += 4
            return true
        }
        if follows("false") {
            i += 5
            return false
        }
        return nil
    }

    /// Whether `word` comes next.
    private func follows(_ word: StaticString) -> Bool {
        guard bytes.count - i >= word.utf8CodeUnitCount else { return false }
        return equals(i..<(i + word.utf8CodeUnitCount), word)
    }
}
