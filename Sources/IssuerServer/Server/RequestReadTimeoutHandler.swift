import NIOCore
import NIOHTTP1

/// docs/reference.md, "Faults and bad input": slow clients cannot hold the server. A connection must deliver a complete request
/// (head, body and end) within `limit` of opening, and the next one within `limit` of the
/// previous response; otherwise it is closed. An idle timeout alone is not enough: a client that
/// trickles one byte every few seconds resets it forever (the "slowloris" attack). The clock
/// stops while the server works on a request, so a slow database never closes a connection.
final class RequestReadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// docs/reference.md, "Faults and bad input": 30 s.
    static let defaultLimit: TimeAmount = .seconds(30)

    private let limit: TimeAmount
    /// Since when the client owes a complete request; nil while the server works on one.
    private var owingSince: NIODeadline?
    /// Requests read to their end, and answers written to theirs. The server has work while more
    /// requests were read than answered; an answer may also be written before its request's end
    /// is read (a static route, or an error about a body nobody reads), which must not leave the
    /// clock stopped.
    private var requestsRead = 0
    private var answersWritten = 0
    /// One timer per connection, moved lazily: a request only notes the time, and the timer,
    /// when it fires early, sets itself again for the deadline as it now stands. Scheduling and
    /// cancelling a timer on every request cost more than the rest of this handler.
    private var timer: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    /// This handler's place in the pipeline while it is in it, for `answeredBeforeDecoder`.
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startOwing(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { startOwing(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            requestsRead += 1
            if requestsRead > answersWritten { owingSince = nil }
        }
        context.fireChannelRead(data)
    }

    /// Answers `ReadyAnswerHandler` wrote before the decoder: requests read and answered, so the
    /// client owes the next one from now (the decoder has seen none of them, and passes nothing
    /// on before that handler has left the pipeline).
    func answeredBeforeDecoder() {
        guard let context else { return }
        if answersWritten >= requestsRead { startOwing(context) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answersWritten += 1
            // Pipelined requests already read are still the server's work: the clock waits.
            if answersWritten >= requestsRead { startOwing(context) }
        }
        context.write(data, promise: promise)
    }

    private func startOwing(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        owingSince = now
        if timer == nil { arm(context, at: now + limit) }
    }

    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            bound.value.handler.fire(bound.value.context)
        }
    }

    private func fire(_ context: ChannelHandlerContext) {
        timer = nil
        guard let owingSince else {
            // The server is working on a request: the client owes nothing until it answers.
            arm(context, at: context.eventLoop.now + limit)
            return
        }
        let due = owingSince + limit
        if context.eventLoop.now >= due {
            context.close(promise: nil)
        } else {
            arm(context, at: due)
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        owingSince = nil
    }
}
