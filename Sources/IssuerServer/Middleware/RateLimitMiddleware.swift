import Hummingbird
import IssuerCore

/// Applies `ISSUER_RATE_LIMIT` to the routes the route table marks (docs/reference.md, "Configuration"): over the
/// allowance, `429` with `Retry-After` and `temporarily_unavailable`. Requests whose client
/// address is unknown (no TCP peer) are not limited.
struct RateLimitMiddleware: RouterMiddleware {
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        if context.route?.isRateLimited == true, let client = context.clientIP, let wait = limiter.acquire(client: client) {
            throw OAuthError(.temporarilyUnavailable, "Too many requests; slow down.", status: 429, retryAfter: wait)
        }
        return try await next(request, context)
    }
}
