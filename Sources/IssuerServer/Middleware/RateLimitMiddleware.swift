import Hummingbird
import IssuerCore

/// Applies `ISSUER_RATE_LIMIT` to the endpoints that sign in or mint tokens (SPEC §2): over the
/// allowance, `429` with `Retry-After` and `temporarily_unavailable`. Requests whose client
/// address is unknown (no TCP peer) are not limited.
struct RateLimitMiddleware: RouterMiddleware {
    let limiter: RateLimiter
    /// Exact paths that share the allowance.
    let paths: Set<String>
    let trustedProxies: [IPAddressRange]

    func handle(_ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response) async throws -> Response {
        guard paths.contains(request.uri.path),
              let client = ClientAddress.resolve(
                peer: context.remoteAddress, forwardedFor: request.headers[.forwardedFor], trusted: trustedProxies)
        else { return try await next(request, context) }
        if let wait = limiter.acquire(client: client) {
            throw OAuthError(.temporarilyUnavailable, "Too many requests; slow down.", status: 429, retryAfter: wait)
        }
        return try await next(request, context)
    }
}
