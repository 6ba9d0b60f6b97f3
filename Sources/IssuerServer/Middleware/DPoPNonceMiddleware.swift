import Hummingbird
import IssuerCore

/// docs/reference.md, "DPoP", with `ISSUER_DPOP_NONCE=on`: every answer of an endpoint that
/// issues tokens carries the nonce the client's next proof must hold (RFC 9449 §8.1), its errors
/// included — `use_dpop_nonce` first of all, but also a `200`, so a client refreshing again soon
/// never needs the extra round trip. One request step rather than a header set by each endpoint.
struct DPoPNonceMiddleware: RouterMiddleware {
    let nonces: DPoPNonces

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard context.route?.issuesTokens == true else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Rendered here, as RequestIDMiddleware would, so that the header can be added.
            response = try error.response(from: request, context: context)
        }
        response.headers[.dpopNonce] = nonces.current()
        return response
    }
}
