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

    @Option(name: .customLong("access-token-prefix"), help: ArgumentHelp(
        "Vertex AI: accept only bearer tokens that start with this (others are closed with 1008 \"Request had invalid authentication credentials\").",
        valueName: "prefix"))
    var accessTokenPrefix: String?

    @Option(name: .customLong("ephemeral-token-prefix"), help: ArgumentHelp(
        "Accept ephemeral tokens (Authorization: Token …) that start with this, each for one new session as the service does: a spent one is closed with 1011 \"Token has been used too many times\"; resuming does not use one up.",
        valueName: "prefix"))
    var ephemeralTokenPrefix: String?

    @Option(name: .customLong("go-away-after"), help: ArgumentHelp("Send goAway this many seconds after setup, then close.", valueName: "seconds"), transform: Seconds.parse)
    var goAwayAfter: Double?

    @Option(name: .customLong("go-away-time-left"), help: ArgumentHelp("The timeLeft announced by goAway.", valueName: "seconds"), transform: Seconds.parse)
    var goAwayTimeLeft: Double = 2

    @Option(name: .customLong("drop-after"), help: ArgumentHelp("Drop the TCP connection this many seconds after setup.", valueName: "seconds"), transform: Seconds.parse)
    var dropAfter: Double?

    @Flag(name: .customLong("malformed-frame"), help: "Send one malformed frame after setup.")
    var malformedFrame = false

    @Option(name: .customLong("close-code"), help: "Close with this code (see --close-reason): right after setup, or with --close-after-turns when a later turn arrives.")
    var closeCode: Int?

    @Option(name: .customLong("close-reason"), help: "The reason text for --close-code (e.g. \"Internal error encountered.\", \"\" for the time limit, \"You exceeded your current quota…\").")
    var closeReason: String = "Internal error encountered."

    @Option(name: .customLong("close-after-turns"), help: ArgumentHelp("With --close-code: close when a user turn arrives after this many answered turns, before answering it.", valueName: "n"))
    var closeAfterTurns: Int?

    @Flag(name: .customLong("refuse-handles"), help: "Refuse every resumption handle with 1008 \"BidiGenerateContent session expired\" (as after a service restart).")
    var refuseHandles = false

    @Option(name: .customLong("silent-replies"), help: ArgumentHelp("Answer this many turns with nothing at all (a stuck model).", valueName: "n"))
    var silentReplies: Int?

    @Flag(name: .customLong("quiet-audio"), help: "With --silent-replies: answer with near-silent audio instead of nothing.")
    var quietAudio = false

    @Option(name: .customLong("down-after"), help: ArgumentHelp("Go down this many seconds after starting (see --down-for).", valueName: "seconds"))
    var downAfter: Double?

    @Option(name: .customLong("down-for"), help: ArgumentHelp("Stay down this long, then come back on the same port.", valueName: "seconds"))
    var downFor: Double = 60

    @Flag(name: .customLong("down-accepts"), help: "While down, accept connections and close them at once instead of refusing them.")
    var downAccepts = false

    @Flag(name: .customLong("every-connection"), help: "Inject the faults on every connection, not just the first.")
    var everyConnection = false

    @Option(name: .customLong("reply-delay"), help: ArgumentHelp("Wait this long before answering.", valueName: "seconds"), transform: Seconds.parse)
    var replyDelay: Double = 0.15

    @Option(help: ArgumentHelp("What the simulator hears in audio turns (repeat for several turns).", valueName: "text"))
    var transcript: [String] = []

    @Flag(name: .customLong("text-frames"), help: "Send text frames instead of binary ones.")
    var textFrames = false

    @Flag(name: .customLong("turn-complete-at-once"), help: "End a turn as soon as its reply is sent, not once its audio would have played (faster scripted tests).")
    var turnCompleteAtOnce = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        if let closeCode, !(1000...4999).contains(closeCode) { throw ValidationError("--close-code must be a WebSocket close code (1000…4999)") }
        if closeAfterTurns != nil, closeCode == nil { throw ValidationError("--close-after-turns needs --close-code") }
        if let n = closeAfterTurns, n < 0 { throw ValidationError("--close-after-turns must be 0 or more") }
        if let n = silentReplies, n < 1 { throw ValidationError("--silent-replies must be 1 or more") }
        for (name, v) in [("--down-after", downAfter ?? 0), ("--down-for", downFor)] where !(v.isFinite && v >= 0 && v < 1e6) {
            throw ValidationError("\(name) must be a number of seconds (0 or more)")
        }
    }

    var options: SimulatorOptions {
        var o = SimulatorOptions()
        o.apiKey = apiKey
        if let accessTokenPrefix { o.acceptsAccessToken = { $0.hasPrefix(accessTokenPrefix) } }
        if let ephemeralTokenPrefix { o.acceptsEphemeralToken = { $0.hasPrefix(ephemeralTokenPrefix) } }
        o.goAwayAfter = goAwayAfter.map { .milliseconds(Seconds.milliseconds($0)) }
        o.goAwayTimeLeft = .milliseconds(Seconds.milliseconds(goAwayTimeLeft))
        o.dropAfter = dropAfter.map { .milliseconds(Seconds.milliseconds($0)) }
        o.malformedFrameAfterSetup = malformedFrame
        if let closeCode {
            let reason = CloseReason(code: closeCode, reason: closeReason)
            if let n = closeAfterTurns {
                o.faults.closeOnTurn = (n, reason, everyConnection ? Int.max : 1)
            } else {
                o.closeAfterSetup = (closeCode, closeReason)
            }
        }
        if refuseHandles { o.faults.refuseHandles = .sessionExpired }
        if let n = silentReplies { o.faults.silentReplies = (n, quietAudio ? .quietAudio : .nothing) }
        if let downAfter {
            o.outage = (.milliseconds(Int64(downAfter * 1000)), .milliseconds(Int64(downFor * 1000)),
                        downAccepts ? .closeImmediately : .refuseConnections)
        }
        o.faultScope = everyConnection ? .everyConnection : .firstConnection
        o.replyDelay = .milliseconds(Seconds.milliseconds(replyDelay))
        if !transcript.isEmpty { o.audioTranscripts = transcript }
        o.sendTextFrames = textFrames
        o.turnCompleteAfterPlayback = !turnCompleteAtOnce
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
