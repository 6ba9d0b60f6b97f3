import Foundation

/// Fetches a provider's JWK Set (RFC 7517 §5). The server implements it over HTTP with a
/// 5-second timeout (docs/reference.md, "Faults and bad input"); tests implement it in memory. Keeping HTTP out of the core is
/// what lets the cache's timing rules be tested with an injected clock.
public protocol JWKSFetcher: Sendable {
    /// The document's bytes and the `max-age` of its `Cache-Control`, if any. Throws on a
    /// network failure, a timeout or a non-2xx answer.
    func fetchJWKS(from url: URL) async throws -> JWKSDocument
}

/// A fetched JWK Set, before parsing.
public struct JWKSDocument: Sendable {
    /// The raw JSON, parsed by the cache.
    public var body: Data
    /// `Cache-Control: max-age` in seconds, when the provider sent one.
    public var maxAge: Int?

    /// `maxAge` nil: the provider sent no `max-age`, so the cache uses its minimum lifetime.
    public init(body: Data, maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }

    /// The freshness lifetime a `Cache-Control` header value gives (RFC 9111 §4.2.1), by
    /// `CacheControl`'s total parser: nil without `max-age`; 0 for `no-store`, `no-cache` or an
    /// invalid `max-age`, which the cache then raises to its minimum.
    public static func maxAge(fromCacheControl value: String?) -> Int? {
        value.flatMap { CacheControl($0).freshnessLifetime }
    }
}
