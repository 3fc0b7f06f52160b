import Foundation
import Glibc
import Live
import Logging
import PulseAudio
import TUI

/// The parsers that read what parley does not control, each driven the way parley drives it: decode, then use
/// what was decoded the way the program does next (export a transcript, classify a close, map a key).
enum FuzzParsers {
    /// A server frame: binary frames arrive as bytes, text frames as a String the WebSocket layer checked for UTF-8.
    static func frames(_ data: Data) {
        let codec = LiveCodec()
        for bytes in [data, Data(String(decoding: data, as: UTF8.self).utf8)] {
            guard let message = try? codec.decodeServer(bytes) else { continue }
            // The simulator re-encodes what it sends; a decoded message must encode again.
            _ = try? codec.encode(message)
            // What the session and the reducer read next.
            if let text = message.serverContent?.outputTranscription?.text { _ = TerminalText.sanitized(text) }
            _ = message.goAway?.timeLeftDuration
            _ = message.sessionResumptionUpdate?.usableHandle
            var tokens = 0
            for _ in 0..<2 { tokens += message.usageMetadata?.totalTokenCount ?? 0 }
        }
    }

    /// A close: two bytes of code, the rest the reason text.
    static func closeReasons(_ data: Data) {
        let code = data.count >= 2 ? Int(data[data.startIndex]) << 8 | Int(data[data.startIndex + 1]) : 1000
        let reason = CloseReason(code: code, reason: String(decoding: data.dropFirst(2), as: UTF8.self))
        _ = (reason.description, reason.kind, reason.isFatal, reason.codeAndReason)
        _ = TerminalText.sanitized(reason.description, .singleLine)
    }

    static func config(_ data: Data) {
        var config = Config()
        try? config.apply(toml: String(decoding: data, as: UTF8.self), file: "fuzz.toml")
    }

    static func theme(_ data: Data) {
        _ = ThemeParser.parse(text: String(decoding: data, as: UTF8.self), file: "fuzz.toml")
    }

    /// A saved session read back and exported, as `parley export` does.
    static func transcript(_ data: Data) {
        guard let path = scratch("session.jsonl", data) else { return }
        guard let records = try? TranscriptStore.read(path) else { return }
        _ = TranscriptStore.markdown(records, title: "fuzz")
        _ = ResumeSeed(records, model: LiveModel.defaultID)
        // `--resume` adding to the file: whatever its tail, it is cut back to whole lines.
        (try? TranscriptStore(continuing: path))?.close()
    }

    /// The state files: the remembered voice and the resumption handle (checked for age as `--resume` does).
    static func state(_ data: Data) {
        guard let path = scratch("state.json", data) else { return }
        _ = RememberedState.load(path)
        let handles = ResumeStore(path: path)
        _ = handles.handle(for: handles.load()?.transcript ?? "", model: LiveModel.defaultID)
    }

    /// Terminal input read in pieces (the first byte picks where the reads end), then mapped to commands.
    static func keys(_ data: Data) {
        guard let first = data.first else { return }
        var decoder = KeyDecoder()
        var events: [InputEvent] = []
        var now = 0.0
        for chunk in pieces(data.dropFirst(), seed: first) {
            events += decoder.feed(chunk, now: now)
            now += 0.01
            events += decoder.flush(now: now)
        }
        events += decoder.flush(now: now + 1)
        var kitty = KittyDetection(sentAt: 0, timeout: 1)
        for case .key(let key) in events { _ = KeyMap.default.command(for: key) }
        for e in events { _ = kitty.observe(e) }
    }

    static func wav(_ data: Data) {
        guard let contents = try? WAVFile.parse(data) else { return }
        _ = WAVFile.mixdown(contents.samples, channels: contents.channels)
    }

    /// What an MCP server writes to its stdout: cut into lines by the line transport (the first byte sets its
    /// size limit), each line decoded as the client decodes replies, then turned into tool declarations and
    /// results.
    static func mcp(_ data: Data) {
        guard let first = data.first else { return }
        let body = data.dropFirst().prefix(60_000)  // under a pipe's buffer: written at once, read after
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        defer { close(fds[0]) }
        _ = body.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        var lines: [Data] = []
        LineTransport.readLines(fd: fds[0], limit: 16 + Int(first) * 64, stopped: StopFlag(), logger: quiet) { lines.append($0) }
        for line in lines {
            // As the client routes a line: a response is decoded as the request that waits for it would.
            guard case .response(_, error: nil)? = try? MCP.Incoming(line: line) else { continue }
            if let page = try? MCP.result(line, as: MCP.ToolsPage.self) {
                for tool in page.tools { _ = MCPServers.geminiSchema(tool.inputSchema) }
            }
            if let result = try? MCP.result(line, as: MCP.CallResult.self) {
                _ = MCPServers.resultText(result.content, limit: Int(first) * 4)
            }
            _ = try? MCP.result(line, as: MCP.InitializeResult.self)
        }
    }

    /// Image headers: a JPEG's markers, and ffmpeg's MJPEG and PPM streams read in pieces.
    static func image(_ data: Data) {
        if let header = JPEGHeader(data) { _ = header.width * header.height }
        _ = JPEGHeader.isComplete(data)
        guard let first = data.first else { return }
        var jpegs = JPEGStreamSplitter()
        var ppms = PPMStreamSplitter()
        for chunk in pieces(data.dropFirst(), seed: first) {
            for frame in jpegs.push(ArraySlice(chunk)) { _ = JPEGHeader(frame) }
            _ = ppms.push(ArraySlice(chunk))
        }
    }

    /// `data` cut into pieces whose lengths come from `seed` (1…16 bytes, varying).
    static func pieces(_ data: Data, seed: UInt8) -> [[UInt8]] {
        let bytes = [UInt8](data)
        var out: [[UInt8]] = []
        var i = 0
        var s = UInt32(seed) | 1
        while i < bytes.count {
            s = s &* 1_103_515_245 &+ 12_345
            let n = min(bytes.count - i, Int(s >> 16) % 16 + 1)
            out.append(Array(bytes[i..<(i + n)]))
            i += n
        }
        return out
    }

    static let quiet = Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() }

    /// Writes `data` to a scratch file (in /dev/shm when there is one) with plain write(2): Foundation's
    /// createFile syncs the disk and would make a file target 100 times slower.
    static func scratch(_ name: String, _ data: Data) -> String? {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = "\(base)/parley-fuzz-\(getpid())-\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == data.count ? path : nil
    }
}
