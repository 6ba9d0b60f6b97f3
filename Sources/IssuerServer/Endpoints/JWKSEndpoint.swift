import HTTPTypes
import Hummingbird

/// docs/reference.md, "JWKS", `GET /oauth2/jwks.json`: the public keys of the active, next and still-published
/// retired keys. The bytes and ETag are computed when the ring changes; a request only copies a
/// reference to them.
struct JWKSEndpoint {
    let monitor: KeyRingMonitor

    static var cacheControl: String { "public, max-age=300, stale-while-revalidate=60, stale-if-error=86400" }

    func register(on routes: RouteRegistrar) {
        routes.add(.jwks) { request, _ in
            let answer = Self.answer(monitor.current, requestHeaders: request.headers)
            return Response(status: answer.status, headers: answer.headers, body: answer.body.map { .init(byteBuffer: $0) } ?? .init())
        }
    }

    /// The answer to a GET: the keys, or 304 when the client's `If-None-Match` still matches.
    static func answer(_ keys: PublishedKeys, requestHeaders: HTTPFields) -> StaticAnswer {
        answer(keys, notModified: isNotModified(requestHeaders[.ifNoneMatch], keys: keys))
    }

    static func answer(_ keys: PublishedKeys, notModified: Bool) -> StaticAnswer {
        answer(etag: keys.etag, body: keys.jwksBody, notModified: notModified)
    }

    /// The answer for the JWKS `body` with its `etag`: the one builder of both paths' answers.
    static func answer(etag: String, body: ByteBuffer, notModified: Bool) -> StaticAnswer {
        var headers: HTTPFields = [
            .cacheControl: Self.cacheControl,
            .eTag: etag,
            .accessControlAllowOrigin: "*",
        ]
        if notModified {
            return StaticAnswer(status: .notModified, headers: headers, body: nil)
        }
        headers[.contentType] = "application/json"
        return StaticAnswer(status: .ok, headers: headers, body: body)
    }

    static func isNotModified(_ ifNoneMatch: String?, keys: PublishedKeys) -> Bool {
        isNotModified(ifNoneMatch, etag: keys.etag)
    }

    static func isNotModified(_ ifNoneMatch: String?, etag: String) -> Bool {
        ifNoneMatch.map { matches($0, etag: etag) } ?? false
    }

    /// The route for `StaticRouteHandler`: the same answers, encoded once per published ring
    /// (`EncodedJWKS`).
    func staticEntry(path: String) -> (String, StaticRoutes.Entry) {
        let monitor = monitor
        return (path, StaticRoutes.Entry(route: RouterPath(path).description) { ifNoneMatch in
            let answers = monitor.currentJWKS
            return Self.isNotModified(ifNoneMatch, etag: answers.etag) ? answers.notModified : answers.ok
        })
    }

    /// RFC 9110 §13.1.2: `*`, or a list of entity tags compared weakly.
    static func matches(_ condition: String, etag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
