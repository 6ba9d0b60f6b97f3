import JOSE

/// RFC 6749 §5.1 successful token response (plus OIDC Core §3.1.3.3's `id_token` and RFC 8693
/// §2.2.1's `issued_token_type`). Rendered with `Cache-Control: no-store`.
public struct TokenResponse: Sendable, Equatable, Encodable {
    /// RFC 6749 §5.1 `access_token`: an RS256 JWT (RFC 9068).
    public var accessToken: String
    /// RFC 6749 §5.1 `token_type`: `Bearer` (RFC 6750), or `DPoP` for a session bound to a DPoP
    /// key (RFC 9449 §5, docs/reference.md, "DPoP").
    public var tokenType = "Bearer"
    /// RFC 6749 §5.1 `expires_in`: the access token's lifetime in seconds.
    public var expiresIn: Int
    /// RFC 6749 §5.1 `refresh_token`: the session's new (rotated) refresh token, when one is issued.
    public var refreshToken: String?
    /// OIDC Core §3.1.3.3 `id_token`: present when `openid` is in scope.
    public var idToken: String?
    /// RFC 6749 §5.1 `scope`: the granted scope, space-separated; always sent.
    public var scope: String
    /// RFC 8693 §2.2.1 `issued_token_type`: set only by the token-exchange grant.
    public var issuedTokenType: String?

    /// The answer's body: the bytes of `JSONEncoder` with sorted keys and unescaped slashes,
    /// written directly (`JSONObjectWriter`, in the members' sorted order).
    public func encodedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 2048)
        writer.string("access_token", accessToken)
        writer.integer("expires_in", expiresIn)
        writer.string("id_token", idToken)
        writer.string("issued_token_type", issuedTokenType)
        writer.string("refresh_token", refreshToken)
        writer.string("scope", scope)
        writer.string("token_type", tokenType)
        return writer.finished()
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case issuedTokenType = "issued_token_type"
    }

    /// `token_type` starts as `Bearer`; pass `issuedTokenType` only for RFC 8693 token exchange.
    public init(accessToken: String, expiresIn: Int, refreshToken: String?, idToken: String?, scope: String, issuedTokenType: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.issuedTokenType = issuedTokenType
    }
}
