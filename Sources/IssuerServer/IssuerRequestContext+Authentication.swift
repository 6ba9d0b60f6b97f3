import IssuerCore

extension IssuerRequestContext {
    /// The verified bearer of a route that takes our access tokens. Its absence means the route
    /// was served without the authentication step, a fault of ours (`500`), never the caller's.
    func requireBearer() throws(OAuthError) -> AccessTokenVerifier.Bearer {
        guard let bearer else { throw .serverError(debug: "route served without the access token authentication step") }
        return bearer
    }
}
