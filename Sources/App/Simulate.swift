import ArgumentParser
import Foundation
import Live
import LiveSimulator

/// `parley simulate`: the Live simulator as a standalone server.
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Live simulator as a standalone server on loopback.",
        discussion: "Point parley at it with --endpoint ws://127.0.0.1:PORT. Faults can be injected to see how a client copes."
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int = 9000

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("api-key"), help: "Require this API key (x-goog-api-key); without it any key is accepted.")
    var apiKey: String?

    @Option(name: .customLong("go-away-after"), help: ArgumentHelp("Send goAway this many seconds after setup, then close.", valueName: "seconds"), transform: Seconds.parse)
    var goAwayAfter: Double?

    @Option(name: .customLong("go-away-time-left"), help: ArgumentHelp("The timeLeft announced by goAway.", valueName: "seconds"), transform: Seconds.parse)
    var goAwayTimeLeft: Double = 2

    @Option(name: .customLong("drop-after"), help: ArgumentHelp("Drop the TCP connection this many seconds after setup.", valueName: "seconds"), transform: Seconds.parse)
    var dropAfter: Double?

    @Flag(name: .customLong("malformed-frame"), help: "Send one malformed frame after setup.")
    var malformedFrame = false

    @Option(name: .customLong("close-code"), help: "Close every new session right after setup with this code (see --close-reason).")
    var closeCode: Int?

    @Option(name: .customLong("close-reason"), help: "The reason text for --close-code.")
    var closeReason: String = "Internal error occurred."

    @Flag(name: .customLong("every-connection"), help: "Inject the faults on every connection, not just the first.")
    var everyConnection = false

    @Option(name: .customLong("reply-delay"), help: ArgumentHelp("Wait this long before answering.", valueName: "seconds"), transform: Seconds.parse)
    var replyDelay: Double = 0.15

    @Option(help: ArgumentHelp("What the simulator hears in audio turns (repeat for several turns).", valueName: "text"))
    var transcript: [String] = []

    @Flag(name: .customLong("text-frames"), help: "Send text frames instead of binary ones.")
    var textFrames = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        if let closeCode, !(1000...4999).contains(closeCode) { throw ValidationError("--close-code must be a WebSocket close code (1000…4999)") }
    }

    var options: SimulatorOptions {
        var o = SimulatorOptions()
        o.apiKey = apiKey
        o.goAwayAfter = goAwayAfter.map { .milliseconds(Seconds.milliseconds($0)) }
        o.goAwayTimeLeft = .milliseconds(Seconds.milliseconds(goAwayTimeLeft))
        o.dropAfter = dropAfter.map { .milliseconds(Seconds.milliseconds($0)) }
        o.malformedFrameAfterSetup = malformedFrame
        o.closeAfterSetup = closeCode.map { ($0, closeReason) }
        o.faultScope = everyConnection ? .everyConnection : .firstConnection
        o.replyDelay = .milliseconds(Seconds.milliseconds(replyDelay))
        if !transcript.isEmpty { o.audioTranscripts = transcript }
        o.sendTextFrames = textFrames
        return o
    }

    func run() async throws {
        let simulator = LiveSimulator(options: options)
        let bound: Int
        do {
            bound = try await simulator.start(host: host, port: port)
        } catch {
            throw report(.usage("cannot listen on \(host):\(port): \(error) (is the port in use? try --port 0)"))
        }
        StandardStream.write("parley simulate: listening on ws://\(host):\(bound) — Ctrl-C stops it\n", to: 2)
        let stop = AsyncStream<Void> { continuation in
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig)
                source.setEventHandler { continuation.yield() }
                source.resume()
                SignalSources.keep(source)
            }
        }
        for await _ in stop { break }
        try? await simulator.stop()
        StandardStream.write("parley simulate: stopped\n", to: 2)
    }
}

/// Keeps dispatch signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    static func keep(_ s: any DispatchSourceSignal) { sources.append(s) }
}
