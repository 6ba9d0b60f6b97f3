import NIOCore

/// Answers a connection's GETs of the static routes (docs/reference.md, "JWKS", "Discovery")
/// from ready bytes, before NIO's HTTP/1 decoder, for as long as the connection asks for nothing
/// else. Backend services keep a connection open and fetch these documents over it; such a
/// connection is served without NIO's parser, its response encoder or the handlers between
/// them, which cost more than the rest of an answer does (docs/performance.md).
///
/// It reads each request with `PlainGetHead`. The first bytes that are not a complete plain GET
/// of a static route — another request, a partial one, a field it leaves to the decoder — are
/// passed on with everything after them, and the handler leaves the pipeline: from then on the
/// connection is the decoder's, and `StaticRouteHandler` still answers its static GETs there.
/// Since nothing was passed on before, no answer of the router can be waiting when one is
/// written here, so answers keep the order of the requests (HTTP/1.1 pipelining). While the
/// client is not reading (the channel is not writable), the bytes go on too, so that a client
/// that never reads cannot grow the server's memory.
///
/// Each answer is the one `StaticRouteHandler` writes: the same `EncodedAnswer`, `Date` and
/// request id, counted in the same request metrics. The read deadline
/// (`RequestReadTimeoutHandler`, after the decoder) is told of the answers of each read, so a
/// connection that only fetches documents keeps its clock as any other. It is told by a call,
/// not by an event through the handlers between them: the event's walk and the cast that
/// recognised it cost about 3% of an answer's CPU.
final class ReadyAnswerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let routes: StaticRoutes
    private let metrics: ServerMetrics
    /// The connection's read deadline, told of the answers written here.
    private let deadline: RequestReadTimeoutHandler
    private var date = ResponseDate()
    private var passingOn = false
    /// The request metrics' instruments this connection has counted in, by route and status: a
    /// connection fetches one or two documents over and over, and looking the labels up in the
    /// shared table each time costs a lock and the hashing of the labels.
    private var counted: [(route: String, status: Int, instruments: ServerMetrics.RequestInstruments)] = []

    init(routes: StaticRoutes, metrics: ServerMetrics, deadline: RequestReadTimeoutHandler) {
        self.routes = routes
        self.metrics = metrics
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if passingOn {
            context.fireChannelRead(data)
            return
        }
        var bytes = unwrapInboundIn(data)
        var answered = false
        while bytes.readableBytes > 0 {
            guard context.channel.isWritable,
                let head = bytes.withUnsafeReadableBytes({ PlainGetHead($0) }),
                let entry = routes.entry(forTarget: head.target)
            else {
                if answered { written(context) }
                passOn(bytes, context: context)
                return
            }
            bytes.moveReaderIndex(forwardBy: head.length)
            answer(entry, head: head, context: context)
            answered = true
        }
        if answered { written(context) }
    }

    private func answer(_ entry: StaticRoutes.Entry, head: PlainGetHead, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        let answer = entry.answer(head.ifNoneMatch)
        var out = context.channel.allocator.buffer(capacity: answer.wireHead.count + 96 + (answer.body?.readableBytes ?? 0))
        answer.writeWire(into: &out, date: date.current())
        context.write(wrapOutboundOut(out), promise: nil)
        instruments(route: entry.route, status: Int(answer.status.code)).record(ContinuousClock.now - start)
    }

    /// Sends what the answers of one read wrote, and restarts the client's clock.
    private func written(_ context: ChannelHandlerContext) {
        context.flush()
        deadline.answeredBeforeDecoder()
    }

    /// `ResponseStamp.record`'s instruments for a GET of `route` answered with `status`.
    private func instruments(route: String, status: Int) -> ServerMetrics.RequestInstruments {
        // The route strings are the entries' own, so comparing them is mostly comparing pointers.
        if let known = counted.first(where: { $0.status == status && $0.route == route }) { return known.instruments }
        let made = ResponseStamp.instruments(metrics, route: route, method: "GET", status: status)
        // The labels are bounded (static routes × statuses), and so is this list.
        counted.append((route, status, made))
        return made
    }

    /// Hands the rest of the connection to the decoder, these bytes first.
    private func passOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        passingOn = true
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
