import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// SPEC §7: slow clients cannot hold the server. A connection must deliver a complete request
/// (head, body and end) within `limit` of opening, and the next one within `limit` of the
/// previous response; otherwise it is closed. An idle timeout alone is not enough: a client that
/// trickles one byte every few seconds resets it forever (the "slowloris" attack). The clock
/// stops while the server works on a request, so a slow database never closes a connection.
final class RequestReadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// SPEC §7: 30 s.
    static let defaultLimit: TimeAmount = .seconds(30)

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { start(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { stop() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { start(context) }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        stop()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: limit) {
            loopBound.value.close(promise: nil)
        }
    }

    private func stop() {
        deadline?.cancel()
        deadline = nil
    }
}
