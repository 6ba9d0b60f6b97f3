import NIOCore
import NIOHTTP1

/// Answers GETs of the static routes (docs/reference.md, "JWKS", docs/reference.md, "Discovery") on the event loop, before
/// the router: their answers are in memory already, and the router's path (a task, the async
/// channel, the middleware chain) costs several times what writing them does. Backend services
/// fetch these documents most, so they are what a deployment serves most. It works on NIO's
/// HTTP/1 parts, before they are converted to HTTPTypes, and writes answers converted once
/// (`EncodedAnswer`): both conversions cost more per request than the rest of this handler.
///
/// The answer is the one the router's handler gives (both come from `StaticAnswer` builders),
/// with the fields every answer carries and counted in the same request metrics, both as
/// `ResponseStamp` defines them for the router's path too. Anything else passes on untouched: other paths and
/// methods, HTTP/1.0, a `Connection` option other than keep-alive, any request that arrives
/// while an earlier one on the connection is still being answered by the router, so that answers
/// keep their order (HTTP/1.1 pipelining), and any request while the client is not reading what
/// it was sent, so that a client pipelining GETs it never reads cannot grow the server's memory.
///
/// It sees only the connections `ReadyAnswerHandler` has passed on: while a connection has asked
/// for nothing but plain static GETs, those are answered before the decoder, from the same
/// `EncodedAnswer`.
final class StaticRouteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: StaticRoutes
    private let metrics: ServerMetrics
    /// Requests passed on whose answer has not yet been written.
    private var passedOn = 0
    /// Between the head of a request answered here and its end: its remaining parts are dropped.
    private var answering = false
    private var date = ResponseDate()

    init(routes: StaticRoutes, metrics: ServerMetrics) {
        self.routes = routes
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            // While the client is not reading its answers (the channel is not writable), the
            // router answers instead: its writer waits for the client, and reading stops.
            // HTTP/1.0, and any `Connection` option but keep-alive, go to the router, which
            // decides about closing and upgrades.
            if passedOn == 0, request.method == .GET, request.version == .http1_1,
                Self.staysOpen(request.headers), context.channel.isWritable,
                let entry = routes.entry(forTarget: request.uri)
            {
                answering = true
                answer(entry, request: request, context: context)
                return
            }
            passedOn += 1
        case .body:
            if answering { return }
        case .end:
            if answering {
                answering = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// RFC 9112 §9.3: an HTTP/1.1 connection stays open unless an option says otherwise;
    /// `keep-alive` (what most clients send) changes nothing.
    private static func staysOpen(_ headers: HTTPHeaders) -> Bool {
        headers[canonicalForm: "connection"].allSatisfy { $0.lowercased() == "keep-alive" }
    }

    private func answer(_ entry: StaticRoutes.Entry, request: HTTPRequestHead, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        // RFC 9110 §5.3: several field lines of one name are one comma-separated list.
        let conditions = request.headers["if-none-match"]
        let answer = entry.answer(conditions.isEmpty ? nil : conditions.joined(separator: ", "))
        context.write(wrapOutboundOut(.head(answer.head(date: date.current(), requestID: StaticRequestID.next()))), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        ResponseStamp.record(metrics, route: entry.route, method: "GET", status: Int(answer.status.code), since: start)
    }
}
