import HTTPTypes
import Hummingbird
import NIOHTTP1

/// What the issuer adds to every answer beside the endpoint's own fields, and how it counts every
/// answer, in one place for both ways an answer leaves: through the router (the middleware, with
/// Hummingbird writing `Date` and the `Server` named here) and past it (`StaticRouteHandler`,
/// which writes NIO's HTTP/1 parts and adds every field itself). A field or a metric changed here
/// changes on both paths.
enum ResponseStamp {
    /// `Server` (RFC 9110 §10.2.4) on every answer of both listeners.
    static let serverName = "issuer"
    /// The request id that every log line of the request carries (`hb.request.id`), returned on
    /// every answer, errors included, so that a client's report can be matched to the server's logs.
    static let requestIDName = "X-Request-Id"
    static let requestIDField = HTTPField.Name(requestIDName)!
    /// The route label of a request that matched no route: the label is the matched route, never
    /// the raw path, so that unknown paths cannot grow the metrics' label space.
    static let unmatchedRoute = "unmatched"

    /// The router's answer: Hummingbird adds `Date` and `Server` itself.
    static func stamp(_ response: inout Response, requestID: String) {
        response.headers[requestIDField] = requestID
    }

    /// The fields that are the same on every answer past the router, added once when the answer
    /// is encoded (`EncodedAnswer`).
    static func stampEncoded(_ headers: inout HTTPHeaders) {
        headers.add(name: "Server", value: serverName)
    }

    /// The fields that differ per answer past the router, added to NIO's headers as they are (no
    /// conversion, no allocation beyond the two values).
    static func stampEach(_ headers: inout HTTPHeaders, date: String, requestID: String) {
        headers.add(name: "Date", value: date)
        headers.add(name: requestIDName, value: requestID)
    }

    /// Counts one answered request and its latency since `start` (docs/operations.md, "Reading the metrics").
    static func record(
        _ metrics: ServerMetrics, route: String, method: String, status: Int, since start: ContinuousClock.Instant
    ) {
        instruments(metrics, route: route, method: method, status: status).record(ContinuousClock.now - start)
    }

    /// What `record` counts in for these labels, for a caller that answers many requests of one
    /// label set and keeps them (`ReadyAnswerHandler`); each answer is then recorded with
    /// `record(_:)` and its latency since its start.
    static func instruments(_ metrics: ServerMetrics, route: String, method: String, status: Int) -> ServerMetrics.RequestInstruments {
        metrics.requestInstruments(route: route, method: method, status: status)
    }
}
