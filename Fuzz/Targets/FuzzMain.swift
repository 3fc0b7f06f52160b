// libFuzzer's entry point for parley's parsers. Not part of the package: scripts/fuzz.sh compiles these files
// into the App module (so they reach its internal parsers) with -sanitize=fuzzer, into one binary,
// .build-fuzz/parley-fuzz; PARLEY_FUZZ_TARGET names the parser a run feeds.
import Foundation

/// One parser fed with libFuzzer's bytes. A target must not keep state between inputs.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (Data) -> Void
}

enum Fuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget(name: "frames", summary: "server frames (camelCase and snake_case; binary and text)", run: FuzzParsers.frames),
        FuzzTarget(name: "close", summary: "close codes and reasons (CloseClassification)", run: FuzzParsers.closeReasons),
        FuzzTarget(name: "config", summary: "config.toml", run: FuzzParsers.config),
        FuzzTarget(name: "theme", summary: "theme TOML", run: FuzzParsers.theme),
        FuzzTarget(name: "transcript", summary: "saved transcripts (JSON lines) and their export", run: FuzzParsers.transcript),
        FuzzTarget(name: "state", summary: "state files: the remembered voice, the resumption handle", run: FuzzParsers.state),
        FuzzTarget(name: "keys", summary: "terminal input (kitty protocol and legacy), read in pieces", run: FuzzParsers.keys),
        FuzzTarget(name: "wav", summary: "WAV files", run: FuzzParsers.wav),
        FuzzTarget(name: "mcp", summary: "MCP server output: lines, JSON-RPC responses, tool lists and results", run: FuzzParsers.mcp),
        FuzzTarget(name: "image", summary: "image headers: JPEG markers, ffmpeg's MJPEG and PPM streams", run: FuzzParsers.image),
    ]

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"] ?? ""
        guard let t = targets.first(where: { $0.name == name }) else {
            let names = targets.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("PARLEY_FUZZ_TARGET must name a target: \(names) (got \"\(name)\")\n".utf8))
            exit(2)
        }
        return t
    }()
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = Fuzz.selected
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    Fuzz.selected.run(data)
    return 0
}
