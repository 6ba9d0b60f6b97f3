import HTTPTypes
import NIOCore

/// A complete answer known before the request arrives (the JWKS (docs/reference.md, "JWKS"), the discovery (docs/reference.md, "Discovery")):
/// what the router's handler returns and what `StaticRouteHandler` writes on the event loop,
/// built by one function per endpoint so the two can never differ.
struct StaticAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// Nil for a status without a body (304).
    var body: ByteBuffer?
}

/// The static routes of one listener, by exact path: each answers a GET from its `If-None-Match`
/// alone, with an answer encoded before the request came (`EncodedAnswer`).
struct StaticRoutes: Sendable {
    /// The matched-route label the metrics record, and the answer.
    struct Entry: Sendable {
        let route: String
        /// The answer to a GET that sent this `If-None-Match` (nil: it sent none).
        let answer: @Sendable (_ ifNoneMatch: String?) -> EncodedAnswer
    }

    let entries: [String: Entry]

    /// The entry for a request target: its path alone names it, a query changes nothing.
    func entry(forTarget target: String) -> Entry? {
        guard let query = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return entries[target] }
        return entries[String(target[..<query])]
    }
}
