/// RFC 6749 §5.1 successful token response (plus OIDC Core §3.1.3.3's `id_token` and RFC 8693
/// §2.2.1's `issued_token_type`). Rendered with `Cache-Control: no-store`.
public struct TokenResponse: Sendable, Equatable, Encodable {
    public var accessToken: String
    public var tokenType = "Bearer"
    public var expiresIn: Int
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String
    public var issuedTokenType: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case issuedTokenType = "issued_token_type"
    }

    public init(accessToken: String, expiresIn: Int, refreshToken: String?, idToken: String?, scope: String, issuedTokenType: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.issuedTokenType = issuedTokenType
    }
}
