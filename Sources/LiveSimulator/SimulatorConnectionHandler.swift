import Foundation
import Live
import Logging
import NIOCore
import NIOWebSocket

/// Runs one ``SimulatedSession`` on a WebSocket channel: feeds it frames and timer expiries, performs its actions.
final class SimulatorConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long to wait for the client's close frame before closing the TCP connection anyway.
    static let closeTimeout: TimeAmount = .seconds(2)

    private var session: SimulatedSession
    private let store: SimulatorStore
    private let textFrames: Bool
    private let usageNaming: UsageMetadata.Naming
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var opened = NIODeadline.now()
    private var timers: [SimulatedSession.Timer: Scheduled<Void>] = [:]
    private var closeSent = false
    private var closeTimer: Scheduled<Void>?
    private let codec = LiveCodec()
    private var faults: FaultInjector

    init(
        session: SimulatedSession, store: SimulatorStore, faults: SimulatorFaults, textFrames: Bool,
        usageNaming: UsageMetadata.Naming = .aiStudio, logger: Logger
    ) {
        self.usageNaming = usageNaming
        self.session = session
        self.store = store
        self.faults = FaultInjector(faults: faults, store: store)
        self.textFrames = textFrames
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        opened = .now()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        cancelTimers()
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.connectionEnded()
        cancelTimers()
        store.record { $0.openConnections -= 1 }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("simulator connection error", metadata: ["error": "\(error)"])
        session.connectionEnded()
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard !closeSent else { return }
            let bytes = Data(frame.unmaskedData.readableBytesView)
            if let refused = faults.refusal(for: bytes) {
                session.connectionEnded()
                sendClose(refused, context: context)
                return
            }
            let turnsBefore = store.userTurnCount
            let actions = session.receive(bytes, now: elapsed())
            if let close = faults.afterTurns(store.userTurnCount - turnsBefore) {
                session.connectionEnded()
                sendClose(close, context: context)
                return
            }
            perform(actions, context: context)
        case .ping:
            guard !closeSent else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self).map(Int.init) ?? 1005
            store.record { $0.clientCloseCodes.append(code) }
            session.connectionEnded()
            cancelTimers()
            if closeSent {
                context.close(promise: nil)
            } else {
                // Echo the close, as RFC 6455 asks, then hang up.
                closeSent = true
                var echo = context.channel.allocator.buffer(capacity: 2)
                echo.writeInteger(UInt16(truncatingIfNeeded: code == 1005 ? 1000 : code))
                let done = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)), promise: done)
                done.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    private func elapsed() -> Duration {
        let ns = (NIODeadline.now() - opened).nanoseconds
        return .nanoseconds(ns)
    }

    // MARK: - Actions

    private func perform(_ actions: [SimulatedSession.Action], context: ChannelHandlerContext) {
        var wrote = false
        for action in faults.filter(actions) {
            switch action {
            case .send(let message):
                do {
                    let text = try codec.encode(message, usageNaming: usageNaming)
                    write(text, context: context)
                    wrote = true
                } catch {
                    logger.error("simulator could not encode a server message", metadata: ["error": "\(error)"])
                }
            case .sendRaw(let text):
                write(text, context: context)
                wrote = true
            case .close(let reason):
                if wrote { context.flush() }
                sendClose(reason, context: context)
                return
            case .drop:
                logger.debug("simulator drops the connection on purpose")
                cancelTimers()
                if wrote { context.flush() }
                context.close(promise: nil)
                return
            case .schedule(let timer, let after):
                schedule(timer, after: after, context: context)
            case .cancel(let timer):
                timers.removeValue(forKey: timer)?.cancel()
            case .decodeColour(let jpeg, let turn):
                decodeColour(jpeg, turn: turn, context: context)
            }
        }
        if wrote { context.flush() }
    }

    private func write(_ text: String, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        let frame = WebSocketFrame(fin: true, opcode: textFrames ? .text : .binary, data: buffer)
        context.write(wrapOutboundOut(frame), promise: nil)
    }

    private func sendClose(_ reason: CloseReason, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        closeSent = true
        cancelTimers()
        store.record { $0.closesSent.append(reason) }
        logger.debug("simulator closes the connection", metadata: ["code": "\(reason.code)", "reason": "\(reason.reason)"])
        var buffer = context.channel.allocator.buffer(capacity: 125)
        buffer.writeInteger(UInt16(truncatingIfNeeded: reason.code))
        buffer.writeString(Self.truncated(reason.reason, maxBytes: 123))
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)), promise: nil)
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) }
    }

    /// A close frame's reason must fit in 123 bytes; cut at a character boundary.
    static func truncated(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var out = ""
        for c in text {
            if out.utf8.count + String(c).utf8.count > maxBytes { break }
            out.append(c)
        }
        return out
    }

    private func schedule(_ timer: SimulatedSession.Timer, after: Duration, context: ChannelHandlerContext) {
        timers.removeValue(forKey: timer)?.cancel()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timers[timer] = context.eventLoop.scheduleTask(in: TimeAmount(max(.zero, after))) {
            bound.value.fire(timer)
        }
    }

    /// ffmpeg decodes on a worker thread; the result comes back on the event loop, which never waits for it.
    private func decodeColour(_ jpeg: Data, turn: Int, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        DispatchQueue.global().async {
            let colour = try? FrameColour.average(ofJPEG: jpeg)
            loop.execute {
                let handler = bound.value
                guard let context = handler.context else { return }
                handler.perform(handler.session.colourDecoded(colour, turn: turn, now: handler.elapsed()), context: context)
            }
        }
    }

    private func fire(_ timer: SimulatedSession.Timer) {
        timers.removeValue(forKey: timer)
        guard let context else { return }
        perform(session.timerFired(timer, now: elapsed()), context: context)
    }

    private func cancelTimers() {
        for t in timers.values { t.cancel() }
        timers.removeAll()
    }
}
