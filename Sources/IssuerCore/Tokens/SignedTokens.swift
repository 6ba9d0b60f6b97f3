/// The signed tokens of one ``TokenContents`` (docs/reference.md, "Native sign-in" response), with the claims they carry so callers
/// can log or store them without parsing their own tokens back.
public struct SignedTokens: Sendable {
    /// The RFC 9068 access token, compact JWS.
    public let accessToken: String
    /// Its claims (docs/reference.md, "Access tokens").
    public let accessTokenClaims: AccessTokenClaims
    /// The ID token, when the scope includes `openid` (OIDC Core §3.1.3.3).
    public let idToken: String?
    /// Its claims (docs/reference.md, "ID tokens").
    public let idTokenClaims: IDTokenClaims?
    /// `expires_in` of the token response (RFC 6749 §5.1): the access token's lifetime in seconds.
    public let expiresIn: Int
    /// The `kid` both tokens were signed with (RFC 7515 §4.1.4).
    public let kid: String
}
