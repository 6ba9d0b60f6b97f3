import HTTPTypes
import Hummingbird

/// SPEC §3.4, `GET /oauth2/jwks.json`: the public keys of the active, next and still-published
/// retired keys. The bytes and ETag are computed when the ring changes; a request only copies a
/// reference to them.
struct JWKSEndpoint {
    let monitor: KeyRingMonitor

    static var cacheControl: String { "public, max-age=300, stale-while-revalidate=60, stale-if-error=86400" }

    func register(on routes: RouteRegistrar) {
        routes.add(.jwks) { request, _ in
            let keys = monitor.current
            var headers: HTTPFields = [
                .cacheControl: Self.cacheControl,
                .eTag: keys.etag,
                .accessControlAllowOrigin: "*",
            ]
            if let condition = request.headers[.ifNoneMatch], Self.matches(condition, etag: keys.etag) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: keys.jwksBody))
        }
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
