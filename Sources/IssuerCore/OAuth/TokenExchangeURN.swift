/// The URNs of OAuth 2.0 Token Exchange (RFC 8693) that the token endpoint speaks
/// (docs/reference.md, "Token endpoint"), spelled once.
public enum TokenExchangeURN {
    /// RFC 8693, section 2.1: the grant type.
    public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693, section 3: an OpenID Connect ID token, as a subject token.
    public static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    /// RFC 8693, section 3: an access token: the only token issued by exchange, and a subject
    /// token of a provider that takes access tokens (docs/reference.md, "Facebook").
    public static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
}
