import Foundation
import XCTest

@testable import Live

/// Issue 26: the one-pass reader of reply audio frames and the table base64 decoder give what the full
/// decoder gives, for the frames they take, and leave every other frame to it.
final class ReplyAudioFrameTests: XCTestCase {
    private func full(_ text: String) -> ServerMessage? {
        try? ProtoJSON.decoder().decode(ServerMessage.self, from: Data(text.utf8))
    }

    private func fast(_ text: String) -> ServerMessage? { ReplyAudioFrame.decode(Data(text.utf8)) }

    static let audio = "AAEC/wABAgMEBQYH"

    func testTheShapesOfReplyAudioAreReadInOnePassAsTheFullDecoderReadsThem() throws {
        let frames = [
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"\#(Self.audio)"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"role":"model","parts":[{"inlineData":{"data":"\#(Self.audio)","mimeType":"audio/pcm;rate=24000"}}]}}}"#,
            ProtoJSON.prettyPrinted(#"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"\#(Self.audio)"}}],"role":"model"}}}"#),
            #"{"server_content":{"model_turn":{"parts":[{"inline_data":{"mime_type":"audio/pcm","data":"AAEC_wABAgMEBQYH"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC_w"}},{"inlineData":{"data":"AAECAw=="}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[]}}}"#,
            // Bits after the last byte: Foundation ignores them, and so both readers do.
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"QR=="}}]}}}"#,
            " \r\n\t{ \"serverContent\" : { \"modelTurn\" : { \"parts\" : [ { \"inlineData\" : { \"data\" : \"AAE=\" } } ] } } } \n",
        ]
        for f in frames {
            let expected = try XCTUnwrap(full(f), f)
            XCTAssertEqual(fast(f), expected, f)
            XCTAssertEqual(try LiveCodec().decodeServer(Data(f.utf8)), expected)
        }
    }

    func testEveryOtherFrameIsLeftToTheFullDecoder() {
        let others = [
            #"{"serverContent":{"modelTurn":{"parts":[{"text":"hi"}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC"},"thought":true}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC"}}]},"turnComplete":true}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC"}}]}},"usageMetadata":{}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AA\/C"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AA EC"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC","data":"AAEC"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"role":"model","role":"user","parts":[]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":null,"data":"AAEC"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;voice=é","data":"AAEC"}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":""}}]}}}"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC"}}]}}} x"#,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":"AAEC"}}]}}"#,
            #"{"setupComplete":{}}"#,
        ]
        for f in others { XCTAssertNil(fast(f), f) }
    }

    /// Random damage to reply frames: whenever the one-pass reader takes a frame, the full decoder reads the
    /// same message from it.
    func testDamagedFramesAgreeWithTheFullDecoder() {
        let base = Array(#"{"serverContent":{"modelTurn":{"role":"model","parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAEC_wABAgMEBQYH"}}]}}}"#.utf8)
        let pieces = Array(#"{}[]":, \=-_/+AQw0"#.utf8) + [0x0A, 0x00, 0xC3]
        var rng = SplitMix64(seed: 26)
        var taken = 0
        for _ in 0..<20_000 {
            let b = Self.damaged(base, with: pieces, &rng)
            let data = Data(b)
            guard let m = ReplyAudioFrame.decode(data) else { continue }
            taken += 1
            XCTAssertEqual(m, try? ProtoJSON.decoder().decode(ServerMessage.self, from: data), String(decoding: b, as: UTF8.self))
        }
        XCTAssertGreaterThan(taken, 100, "some damaged frames are still reply audio")
    }

    /// The payload's end is found by its quote alone: an escape in it (a quote, a backslash, a slash, a \\u
    /// sequence), whitespace, a control or non-ASCII byte, anywhere in a payload of 4 to 64 characters, leaves the
    /// frame to the full decoder.
    func testAnEscapeOrStrayByteInThePayloadLeavesTheFrameToTheFullDecoder() {
        let spoils = [#"\""#, #"\\"#, #"\/"#, #"\u0041"#, " ", "\n", "\u{1F}", "é", "\""]
        for length in [4, 8, 12, 64] {
            let payload = Data((0..<(length / 4 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37) }).base64EncodedString()
            for spoil in spoils {
                for at in [0, 1, payload.count / 2, payload.count - 1, payload.count] {
                    let data = payload.prefix(at) + spoil + payload.dropFirst(at)
                    let text = #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"data":""# + data + #"","mimeType":"audio/pcm"}}]}}}"#
                    XCTAssertNil(ReplyAudioFrame.decode(Data(text.utf8)), "\(text): not the plain shape, the full decoder's")
                }
            }
        }
    }

    /// `base` with one to three of its bytes replaced by, dropped or preceded by one of `pieces`.
    static func damaged(_ base: [UInt8], with pieces: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = base
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let at = Int(rng.next() % UInt64(b.count))
            switch rng.next() % 3 {
            case 0: b[at] = pieces[Int(rng.next() % UInt64(pieces.count))]
            case 1: b.remove(at: at)
            default: b.insert(pieces[Int(rng.next() % UInt64(pieces.count))], at: at)
            }
        }
        return b
    }

    /// The six-bytes-a-step encoder writes what Foundation writes: every length from 0 to 300 (each tail, each
    /// place the eight-byte loads stop), every byte value, a second of mic audio; the mic frame around it too.
    func testBase64EncodingAgreesWithFoundation() throws {
        var rng = SplitMix64(seed: 46)
        var samples = (0...300).map { n in Data((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) }
        samples.append(Data((0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) }))
        samples.append(Data((0..<32_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        samples.append(Data(repeating: 0xFF, count: 641))
        for data in samples {
            XCTAssertEqual(Base64.encode(data), data.base64EncodedString(), "\(data.count) bytes")
            let frame = try LiveCodec().encode(.realtimeInput(.micAudio(data)))
            XCTAssertEqual(frame, #"{"realtimeInput":{"audio":{"data":""# + data.base64EncodedString() + #"","mimeType":"audio/pcm;rate=16000"}}}"#)
        }
        // A slice of a larger buffer (its bytes start part way into their storage).
        let whole = Data((0..<100).map { UInt8($0) })
        let slice = whole[7..<50]
        XCTAssertEqual(Base64.encode(slice), slice.base64EncodedString())
    }

    /// The table decoder agrees with Foundation's for every string it takes, and everything decodes as before.
    func testBase64TableDecodingAgreesWithFoundation() {
        var rng = SplitMix64(seed: 64)
        for n in 0..<200 {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let data = Data(bytes)
            let standard = data.base64EncodedString()
            let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let unpadded = urlSafe.replacingOccurrences(of: "=", with: "")
            for text in [standard, urlSafe, unpadded] { XCTAssertEqual(Base64.decode(text), data, text) }
        }
        let alphabet = Array("AQgw/+_-=  \nZz09".utf8)
        for _ in 0..<50_000 {
            var text = String(decoding: (0..<Int(rng.next() % 12)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }, as: UTF8.self)
            let table = text.withUTF8 { Base64.decodeCanonical($0) }
            if let table { XCTAssertEqual(table, Base64.decodeLenient(text), text) }
        }
    }

    /// The eight-bytes-at-a-time scan of a string: every byte value at every place in a word of base64, and the
    /// long payloads it skips over, with the byte that ends or spoils them anywhere in the last words.
    func testTheWordScanFindsEveryByteThatEndsOrSpoilsAString() throws {
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "Q"), count: 8)
                bytes[position] = UInt8(value)
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let special = value == 0x22 || value == 0x5c || value < 0x20 || value >= 0x80
                XCTAssertEqual(FrameReader.holdsSpecialByte(word), special, "byte \(value) at \(position)")
            }
        }
        let payload = String(repeating: "AAEC/wABAgMEBQYH", count: 40)
        func frame(_ data: String) -> String {
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":""# + data + #""}}]}}}"#
        }
        let good = frame(payload)
        XCTAssertEqual(fast(good), try XCTUnwrap(full(good)))
        for cut in [1, 7, 8, 9, 15, 16, 17] {
            for spoil in ["\\", "\u{1}", "é", "\t"] {
                var data = payload
                data.insert(contentsOf: spoil, at: data.index(data.endIndex, offsetBy: -cut))
                XCTAssertNil(fast(frame(data)), "\(spoil.unicodeScalars.first!.value) \(cut) from the end")
            }
        }
    }
}
