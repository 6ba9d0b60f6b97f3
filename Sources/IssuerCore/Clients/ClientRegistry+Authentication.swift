extension ClientRegistry {
    /// RFC 6749 §2.3, §3.2.1: the client a token, exchange or revocation request comes from. Our
    /// clients are public (docs/reference.md, "Configuration": no secret, PKCE-bound), so naming a registered `client_id` is
    /// all a request can present; what a client may then do (scopes, redirect URIs, Apple
    /// audiences) each grant checks against the answered `OAuthClient`.
    ///
    /// - Parameter clientID: the request's `client_id`.
    /// - Throws: `invalid_client` (RFC 6749 §5.2) when no client has that id.
    public func authenticate(_ clientID: String) throws(OAuthError) -> OAuthClient {
        guard let client = client(id: clientID) else {
            throw OAuthError(.invalidClient, "Unknown client_id.")
        }
        return client
    }
}
