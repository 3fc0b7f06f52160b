import Foundation
import ParleyLock
import LiveTesting
import XCTest

@testable import Live

/// Issue 11: mutated server frames through the real decoder and the real session (its connection machine,
/// events and playback path) over a fake transport: no crash, no hang, bounded memory. 10,000 frames with a
/// fixed seed in the normal run; `PARLEY_FUZZ_FRAMES=1000000 PARLEY_FUZZ_SEED=…` for a longer run.
final class FuzzTests: XCTestCase {
    static let corpus: [String] = [
        #"{"setupComplete":{}}"#,
        #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAEC_wABAgMEBQYH"}},{"text":"hi"}]}}}"#,
        #"{"serverContent":{"outputTranscription":{"text":"a few words"}}}"#,
        #"{"serverContent":{"inputTranscription":{"text":"what time is it","finished":true}}}"#,
        #"{"serverContent":{"generationComplete":true}}"#,
        #"{"serverContent":{"turnComplete":true,"turnCompleteReason":"NEED_MORE_INPUT"}}"#,
        #"{"serverContent":{"interrupted":true}}"#,
        #"{"toolCall":{"functionCalls":[{"id":"c1","name":"get_current_time","args":{"zone":"UTC","n":[1,2.5,true,null]}}]}}"#,
        #"{"toolCallCancellation":{"ids":["c1","c2"]}}"#,
        #"{"goAway":{"timeLeft":"0.5s"}}"#,
        #"{"sessionResumptionUpdate":{"newHandle":"abc","resumable":true,"lastConsumedClientMessageIndex":"12345678901"}}"#,
        #"{"usageMetadata":{"promptTokenCount":3,"totalTokenCount":9,"responseTokensDetails":[{"modality":"AUDIO","tokenCount":6}]}}"#,
    ]

    /// Pieces a mutation may splice in: the values that break parsers.
    static let hostile: [String] = [
        "1e308", "-1e308", "1e999", "NaN", "-0", "18446744073709551616", "-9223372036854775809", "0.0000001s", "1e308s",
        "-5s", "\"\\u0000\"", "\"\\ud800\"", "\"\u{1b}]0;x\u{07}\"", "null", "[]", "{}", "true", String(repeating: "[", count: 600),
        String(repeating: "{\"a\":", count: 300), "\"" + String(repeating: "A", count: 70_000) + "\"", "\"s\"",
    ]

    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    }

    static func mutate(_ rng: inout Rng) -> [UInt8] {
        var bytes = Array(corpus[rng.below(corpus.count)].utf8)
        for _ in 0...rng.below(2) {
            let at = rng.below(bytes.count + 1)
            switch rng.below(8) {
            case 0: if at < bytes.count { bytes[at] ^= UInt8(1 << rng.below(8)) }
            case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + rng.below(16) + 1))
            case 3:
                let end = min(bytes.count, at + rng.below(32) + 1)
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            case 4: bytes = Array(bytes.prefix(at))
            case 5:
                let other = Array(corpus[rng.below(corpus.count)].utf8)
                let cut = rng.below(other.count + 1)
                bytes = Array(bytes.prefix(at)) + other[cut...]
            default:
                // Replace a value (after a colon) with something hostile.
                let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
                guard !colons.isEmpty else { continue }
                let c = colons[rng.below(colons.count)] + 1
                var end = c
                while end < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[end]) { end += 1 }
                bytes.replaceSubrange(c..<end, with: Array(hostile[rng.below(hostile.count)].utf8))
            }
        }
        return bytes
    }

    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    func testMutatedServerFramesNeitherCrashNorHangNorGrow() async throws {
        let env = ProcessInfo.processInfo.environment
        let frames = env["PARLEY_FUZZ_FRAMES"].flatMap(Int.init) ?? 10_000
        let seed = env["PARLEY_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_0011
        var rng = Rng(state: seed)
        let codec = LiveCodec()
        let transport = FakeTransport()
        let session = LiveSession(
            configuration: LiveConfiguration(endpoint: "ws://fake", credential: .none, setup: Setup(model: "models/x")),
            transport: transport, playback: { _ in })
        let counted = Locked<[String: Int]>([:])
        let drain = Task {
            for await e in session.events {
                let name = String(describing: e).prefix { $0 != "(" }
                counted.withLock { $0[String(name), default: 0] += 1 }
            }
        }
        session.start()
        try await transport.waitForConnection()
        transport.deliver(Self.corpus[0])

        var decoded = 0, rejected = 0
        var slowest = 0.0
        let rssStart = Self.residentBytes()
        var rssPeak = rssStart
        let started = ContinuousClock.now
        for i in 0..<frames {
            let bytes = Self.mutate(&rng)
            let t0 = ContinuousClock.now
            if (try? codec.decodeServer(Data(bytes))) != nil { decoded += 1 } else { rejected += 1 }
            transport.deliver(String(decoding: bytes, as: UTF8.self))
            // A dropped or handed-over connection comes back: keep the session live to reach every path.
            if i % 50 == 0 { transport.deliver(Self.corpus[0]) }
            let took = ContinuousClock.now - t0
            slowest = max(slowest, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
            if i % 1000 == 0 { rssPeak = max(rssPeak, Self.residentBytes()) }
            XCTAssertLessThan(slowest, 5, "frame \(i) took \(slowest) s: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            if slowest >= 5 { break }
        }
        let total = ContinuousClock.now - started
        session.close()
        drain.cancel()
        let rssEnd = Self.residentBytes()
        let events = counted.withLock { $0 }
        print("fuzz: \(frames) frames (seed \(seed)) in \(total): \(decoded) decoded, \(rejected) rejected; slowest frame "
              + String(format: "%.1f ms", slowest * 1000) + "; RSS \(rssStart >> 20) → \(rssEnd >> 20) MiB (peak \(rssPeak >> 20)); events \(events.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(decoded, 0, "the mutations must not all be rejected")
        XCTAssertGreaterThan(rejected, 0)
        XCTAssertLessThan(rssPeak - rssStart, 256 << 20, "memory stays bounded")
    }

    /// Frames the decoder let through and the session could not take (found while writing the libFuzzer targets,
    /// replayed through `scripts/fuzz.sh`'s binary).
    func testFramesFoundByCoverageGuidedFuzzing() throws {
        let codec = LiveCodec()
        // A goAway's timeLeft past Int64 milliseconds trapped where the session reads it.
        for text in ["1e300s", "315576000001s", "9.3e15s"] {
            let m = try codec.decodeServer(Data(#"{"goAway":{"timeLeft":"\#(text)"}}"#.utf8))
            XCTAssertNil(m.goAway?.timeLeftDuration, text)
        }
        XCTAssertEqual(try codec.decodeServer(Data(#"{"goAway":{"timeLeft":"50s"}}"#.utf8)).goAway?.timeLeftDuration, .seconds(50))
        // Token counts near Int.max overflowed the reducer's running total on the second usageMetadata.
        let huge = try codec.decodeServer(Data(#"{"usage_metadata":{"totalTokenCount":9223372036854775807,"promptTokenCount":-5,"responseTokenCount":7}}"#.utf8))
        XCTAssertEqual(huge.usageMetadata, UsageMetadata(promptTokenCount: nil, responseTokenCount: 7, totalTokenCount: nil))
        let ordinary = try codec.decodeServer(Data(#"{"usageMetadata":{"totalTokenCount":2147483647}}"#.utf8))
        XCTAssertEqual(ordinary.usageMetadata?.totalTokenCount, 2_147_483_647)
    }
}
