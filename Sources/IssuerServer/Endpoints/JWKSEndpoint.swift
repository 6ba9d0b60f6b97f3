import HTTPTypes
import Hummingbird
import Synchronization

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
        var headers: HTTPFields = [
            .cacheControl: Self.cacheControl,
            .eTag: keys.etag,
            .accessControlAllowOrigin: "*",
        ]
        if notModified {
            return StaticAnswer(status: .notModified, headers: headers, body: nil)
        }
        headers[.contentType] = "application/json"
        return StaticAnswer(status: .ok, headers: headers, body: keys.jwksBody)
    }

    static func isNotModified(_ ifNoneMatch: String?, keys: PublishedKeys) -> Bool {
        ifNoneMatch.map { matches($0, etag: keys.etag) } ?? false
    }

    /// The route for `StaticRouteHandler`: the same answers, encoded once per published ring.
    func staticEntry(path: String) -> (String, StaticRoutes.Entry) {
        let monitor = monitor
        let encoded = EncodedJWKS()
        return (path, StaticRoutes.Entry(route: RouterPath(path).description) { ifNoneMatch in
            let keys = monitor.current
            return encoded.answer(for: keys, notModified: Self.isNotModified(ifNoneMatch, keys: keys))
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

/// The two encoded answers (200 and 304) of the JWKS in force, made again only when the ring
/// publishes other bytes (another ETag).
private final class EncodedJWKS: Sendable {
    private struct Answers {
        let etag: String
        let ok: EncodedAnswer
        let notModified: EncodedAnswer
    }

    private let current = Mutex<Answers?>(nil)

    func answer(for keys: PublishedKeys, notModified: Bool) -> EncodedAnswer {
        let answers = current.withLock { current in
            if let current, current.etag == keys.etag { return current }
            let made = Answers(
                etag: keys.etag,
                ok: EncodedAnswer(JWKSEndpoint.answer(keys, notModified: false)),
                notModified: EncodedAnswer(JWKSEndpoint.answer(keys, notModified: true)))
            current = made
            return made
        }
        return notModified ? answers.notModified : answers.ok
    }
}
