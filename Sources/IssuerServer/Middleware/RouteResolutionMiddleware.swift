import Hummingbird
import IssuerCore

/// Resolves, once per request, what every later policy needs: the matched `Route` (by the
/// router's match, not the raw path) and the client IP (through `ISSUER_TRUSTED_PROXIES`).
struct RouteResolutionMiddleware: RouterMiddleware {
    let table: RouteTable
    let trustedProxies: [IPAddressRange]

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.route = table.route(matched: context.endpointPath)
        context.clientIP = ClientAddress.resolve(
            peer: context.remoteAddress, forwardedFor: request.headers[.forwardedFor], trusted: trustedProxies)
        return try await next(request, context)
    }
}
