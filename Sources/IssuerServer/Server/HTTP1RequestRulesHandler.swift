import NIOCore
import NIOHTTP1

/// The HTTP/1 rules the router cannot see, because the conversion to HTTPTypes drops the
/// protocol version and folds `Host` into one authority (docs/reference.md, "Faults and bad input"):
///
/// - RFC 9112 §3.2: a request with more than one `Host` field line, or an HTTP/1.1 request with
///   none, is answered `400` and the connection closed after it.
/// - RFC 9112 §9.3: an HTTP/1.0 request without `Connection: keep-alive`, or any request with
///   `Connection: close`, is the last on its connection: its answer says `Connection: close` and
///   the connection is closed once the answer is written, rather than held until the read deadline.
///
/// Answers leave in request order (HTTP/1.1 pipelining): a refusal waits for the answers to the
/// requests before it, and nothing read after a refused or closing request is passed on.
final class HTTP1RequestRulesHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: ServerMetrics
    /// For each request passed on and not yet answered, in order: whether it is the last.
    private var awaitingAnswers: [Bool] = []
    /// Set once a closing request's head has passed on: its body and end still pass, the next
    /// request does not.
    private var passedLast = false
    /// Set by a refused request, or a request after the last: nothing more is passed on.
    private var ignoringRest = false
    /// A refused request's method and why, while its `400` waits for the answers before it.
    private var owedRefusal: (method: String, problem: String)?

    init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if ignoringRest { return }
        guard case .head(let request) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if passedLast {
            ignoringRest = true
            return
        }
        if let problem = Self.hostProblem(request) {
            ignoringRest = true
            owedRefusal = (request.method.rawValue, problem)
            if awaitingAnswers.isEmpty { refuse(context) }
            return
        }
        passedLast = !request.isKeepAlive
        awaitingAnswers.append(passedLast)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if awaitingAnswers.first == true {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            let last = awaitingAnswers.isEmpty ? false : awaitingAnswers.removeFirst()
            if last {
                // Closed once the answer is out, not before: a close drops writes still queued.
                let written = context.eventLoop.makePromise(of: Void.self)
                if let promise { written.futureResult.cascade(to: promise) }
                let channel = context.channel
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
                context.writeAndFlush(data, promise: written)
                return
            }
            context.write(data, promise: promise)
            if owedRefusal != nil, awaitingAnswers.isEmpty { refuse(context) }
            return
        }
        context.write(data, promise: promise)
    }

    /// RFC 9112 §3.2: exactly one `Host` in HTTP/1.1, at most one in HTTP/1.0.
    static func hostProblem(_ request: HTTPRequestHead) -> String? {
        // Field lines as sent: an empty `Host:` is present (RFC 9112 §3.2 allows it), and a
        // comma is no list separator here but an invalid value.
        let values = request.headers["host"]
        if values.count > 1 || values.contains(where: { $0.utf8.contains(UInt8(ascii: ",")) }) { return "more than one Host field" }
        if values.isEmpty, request.version.major == 1, request.version.minor >= 1 { return "no Host field" }
        return nil
    }

    private func refuse(_ context: ChannelHandlerContext) {
        guard let (method, problem) = owedRefusal else { return }
        owedRefusal = nil
        let start = ContinuousClock.now
        let body = context.channel.allocator.buffer(
            string: #"{"error":"invalid_request","error_description":"\#(problem) (RFC 9112 section 3.2)"}"#)
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: [
            "Content-Type": "application/json",
            "Cache-Control": "no-store",
            "Connection": "close",
            "Content-Length": String(body.readableBytes),
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        ResponseStamp.record(metrics, route: ResponseStamp.unmatchedRoute, method: method, status: 400, since: start)
    }
}
