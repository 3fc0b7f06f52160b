import Foundation
import XCTest

@testable import Live

/// Issue 26: the one-pass reader of transcript fragments gives what the full decoder gives, for the frames it
/// takes, and leaves every other frame to it.
final class TranscriptFrameTests: XCTestCase {
    private func full(_ bytes: [UInt8]) -> ServerMessage? {
        try? ProtoJSON.decoder().decode(ServerMessage.self, from: Data(bytes))
    }

    private func fast(_ bytes: [UInt8]) -> ServerMessage? { TranscriptFrame.decode(Data(bytes)) }

    func testTheShapesOfTranscriptsAreReadAsTheFullDecoderReadsThem() throws {
        let frames = [
            #"{"serverContent":{"outputTranscription":{"text":" Where"}}}"#,
            #"{"serverContent":{"inputTranscription":{"text":" are you","finished":false}}}"#,
            #"{"serverContent":{"inputTranscription":{"finished":true}}}"#,
            #"{"serverContent":{"inputTranscription":{"finished":true,"text":"."}}}"#,
            #"{"serverContent":{"outputTranscription":{}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":""}}}"#,
            #"{"server_content":{"output_transcription":{"text":" snake"}}}"#,
            "{\"serverContent\":{\"outputTranscription\":{\"text\":\" café, 日本語, 👋🏽 <noise> / \u{7F}\"}}}",
            "{\n  \"serverContent\" : {\n    \"outputTranscription\" : {\n      \"text\" : \" pretty\"\n    }\n  }\n}\n",
            " \t{ \"serverContent\" :{\"inputTranscription\": { \"text\" :\"x\" , \"finished\" : true } } }\r\n",
        ]
        for text in frames {
            let bytes = Array(text.utf8)
            let expected = try XCTUnwrap(full(bytes), text)
            XCTAssertEqual(fast(bytes), expected, text)
            XCTAssertEqual(try LiveCodec().decodeServer(Data(bytes)), expected, text)
        }
        XCTAssertEqual(fast(Array(frames[0].utf8))?.serverContent?.outputTranscription?.text, " Where")
        XCTAssertEqual(fast(Array(frames[2].utf8))?.serverContent?.inputTranscription, Transcription(finished: true))
    }

    /// Escapes, control bytes, bytes that are not UTF-8, `null`, a repeated or another key, another field beside
    /// the transcript, a value of another type, what is not a transcript at all: all left to the full decoder.
    func testEveryOtherFrameIsLeftToTheFullDecoder() {
        var frames: [[UInt8]] = [
            #"{"serverContent":{"outputTranscription":{"text":"say \"hi\""}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":"back\\slash"}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":"caf\u00e9"}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":null}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a","text":" b"}}}"#,
            #"{"serverContent":{"inputTranscription":{"finished":true,"finished":false}}}"#,
            #"{"serverContent":{"inputTranscription":{"finished":"true"}}}"#,
            #"{"serverContent":{"inputTranscription":{"finished":1}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":7}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a","confidence":1}}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a"},"turnComplete":true}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a"}},"usageMetadata":{}}"#,
            #"{"serverContent":{"interimInputTranscription":{"text":" a"}}}"#,
            #"{"serverContent":{"turnComplete":true}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a"}}} x"#,
            #"{"serverContent":{"outputTranscription":{"text":" a"}}"#,
            #"{"serverContent":{"outputTranscription":{"text":" a}}}"#,
            #"{"serverContent":{"outputTranscription":{"finished":truex}}}"#,
        ].map { Array($0.utf8) }
        let head = Array(#"{"serverContent":{"outputTranscription":{"text":""#.utf8), tail = Array(#""}}}"#.utf8)
        for inside: [UInt8] in [[0x0A], [0x00], [0x1F], [0xC3], [0xFF], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82]] {
            frames.append(head + inside + tail)
        }
        for bytes in frames {
            XCTAssertNil(fast(bytes), String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Damaged transcripts (bytes replaced, dropped, inserted): whatever the reader still takes, the full decoder
    /// reads the same.
    func testDamagedTranscriptsAgreeWithTheFullDecoder() {
        let base = Array(#"{"serverContent":{"inputTranscription":{"text":" café <noise>","finished":true}}}"#.utf8)
        let pieces = Array(#"{}[]":, \=-_/tfrue0"#.utf8) + [0x0A, 0x00, 0xC3, 0xA9, 0x80]
        var rng = SplitMix64(seed: 27)
        var taken = 0
        for _ in 0..<20_000 {
            let b = ReplyAudioFrameTests.damaged(base, with: pieces, &rng)
            guard let m = fast(b) else { continue }
            taken += 1
            XCTAssertEqual(m, full(b), String(decoding: b, as: UTF8.self))
        }
        XCTAssertGreaterThan(taken, 100, "some damaged frames are still transcripts")
    }
}
