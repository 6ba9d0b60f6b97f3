import HTTPTypes
import Hummingbird
import IssuerCore

/// The second proof of an account change (docs/reference.md, "Two proofs of one session"), one
/// request step after `AccessTokenAuthenticationMiddleware` on the requests `Route.sessionProofFields`
/// names: the body is read once the bearer passed, so a body problem is never answered to a caller
/// without valid credentials; its `refresh_token` and the verified bearer go to `SessionProof`,
/// and the proven session, with the route's other body fields, onto the request context
/// (`IssuerRequestContext.session`).
struct SessionProofMiddleware: RouterMiddleware {
    let proof: SessionProof

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let names = context.route?.sessionProofFields(request.method) else { return try await next(request, context) }
        let bearer = try context.requireBearer()
        let body = try await Self.body(request)
        // The route's fields before the refresh token: a malformed one is refused before the
        // refresh token is judged (and a spent one revokes its session).
        var fields: [String: String] = [:]
        for name in names {
            fields[name] = try body?.optional(name)
        }
        let refreshToken = try body?.optional("refresh_token")
        var context = context
        context.session = ProvenSession(
            proven: try await proof.prove(bearer: bearer, refreshToken: refreshToken, logger: context.logger), fields: fields)
        return try await next(request, context)
    }

    /// The request's body. A `DELETE` without `Content-Type` has none (RFC 9110 §9.3.5 gives a
    /// DELETE's content no meaning, so a client may send the refresh token or nothing), which is a
    /// missing refresh token; a `POST` must name its type.
    static func body(_ request: Request) async throws(OAuthError) -> OAuthParameters? {
        guard request.method == .post || request.headers[.contentType] != nil else { return nil }
        return try await OAuthParameters.parse(request)
    }
}
