import IssuerCore

extension IssuerRequestContext {
    /// The verified bearer of a route that takes our access tokens. Its absence means the route
    /// was served without the authentication step, a fault of ours (`500`), never the caller's.
    func requireBearer() throws(OAuthError) -> AccessTokenVerifier.Bearer {
        guard let bearer else { throw .serverError(debug: "route served without the access token authentication step") }
        return bearer
    }

    /// The proven session of an account change. Its absence means the route was served without
    /// the second proof's step, a fault of ours (`500`), never the caller's.
    func requireSession() throws(OAuthError) -> ProvenSession {
        guard let session else { throw .serverError(debug: "account change served without the session proof step") }
        return session
    }
}
