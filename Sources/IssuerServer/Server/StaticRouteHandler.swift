#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Answers GETs of the static routes (SPEC §3.4 JWKS, §3.5 discovery) on the event loop, before
/// the router: their answers are in memory already, and the router's path (a task, the async
/// channel, the middleware chain) costs several times what writing them does. Backend services
/// fetch these documents most, so they are what a deployment serves most.
///
/// The answer is the one the router's handler gives (both come from `StaticAnswer` builders),
/// with what the middleware adds (`X-Request-Id`) and the server adds (`Date`, `Server`), and it
/// is counted in the same request metrics. Anything else passes on untouched: other paths and
/// methods, a request that asks to close the connection, any request that arrives while an
/// earlier one on the connection is still being answered by the router, so that answers keep
/// their order (HTTP/1.1 pipelining), and any request while the client is not reading what it
/// was sent, so that a client pipelining GETs it never reads cannot grow the server's memory.
final class StaticRouteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let routes: StaticRoutes
    private let metrics: ServerMetrics
    private let serverName: String
    /// Requests passed on whose answer has not yet been written.
    private var passedOn = 0
    /// Between the head of a request answered here and its end: its remaining parts are dropped.
    private var answering = false
    private var dateSecond = -1
    private var date = ""

    init(routes: StaticRoutes, metrics: ServerMetrics, serverName: String) {
        self.routes = routes
        self.metrics = metrics
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            // While the client is not reading its answers (the channel is not writable), the
            // router answers instead: its writer waits for the client, and reading stops.
            if passedOn == 0, request.method == .get, request.headerFields[.connection] == nil,
                context.channel.isWritable, let entry = entry(for: request)
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

    private func entry(for request: HTTPRequest) -> StaticRoutes.Entry? {
        guard var path = request.path?.utf8[...] else { return nil }
        if let query = path.firstIndex(of: UInt8(ascii: "?")) { path = path[..<query] }
        return routes.entries[String(Substring(path))]
    }

    private func answer(_ entry: StaticRoutes.Entry, request: HTTPRequest, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        let answer = entry.answer(request.headerFields)
        var headers = answer.headers
        headers[RequestIDMiddleware<IssuerRequestContext>.headerName] = StaticRequestID.next()
        if let body = answer.body { headers[.contentLength] = String(body.readableBytes) }
        headers[.date] = currentDate()
        headers[.server] = serverName
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        metrics.recordRequest(route: entry.route, method: "GET", status: answer.status.code, duration: ContinuousClock.now - start)
    }

    /// RFC 9110 §5.6.7's IMF-fixdate, made once a second per connection.
    private func currentDate() -> String {
        var now = time(nil)
        guard Int(now) != dateSecond else { return date }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        date = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        dateSecond = Int(now)
        return date
    }
}

/// Request ids for the answers `StaticRouteHandler` writes: 32 hex digits like the router's,
/// unique in the process (a random prefix and a counter), made without a lock.
enum StaticRequestID {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    static func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return hex(prefix) + hex(count)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
