import JOSE

/// The claims of an access token (RFC 9068 §2.2, docs/reference.md, "Access tokens"), as minted and as verified.
///
/// Times are NumericDate seconds (RFC 7519 §2) because that is what travels in the token; a
/// `Date` would invite fractional seconds that no verifier sees.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// The JWS `typ` header of an access token (RFC 9068 §2.1), which tells it apart from an ID token.
    public static let type = "at+jwt"

    /// `iss` (RFC 7519 §4.1.1): `ISSUER_URL`, exactly.
    public var issuer: String
    /// `sub` (RFC 9068 §2.2): the internal user id, never the Apple `sub` (docs/reference.md, "Access tokens").
    public var subject: String
    /// `aud` (RFC 9068 §2.2): `ISSUER_AUDIENCE`.
    public var audience: String
    /// `client_id` (RFC 9068 §2.2, RFC 8693 §4.3): the client the token was issued to.
    public var clientID: String
    /// `iat` (RFC 7519 §4.1.6).
    public var issuedAt: Int
    /// `exp` (RFC 7519 §4.1.4): `iat + ISSUER_ACCESS_TOKEN_TTL`.
    public var expiresAt: Int
    /// `jti` (RFC 7519 §4.1.7): at least 128 random bits.
    public var jwtID: String
    /// `scope` (RFC 9068 §2.2.3, RFC 8693 §4.2): space-separated.
    public var scope: String
    /// `sid` (OIDC Front-Channel Logout §3, docs/reference.md, "Access tokens"): the session, so revoking it stops the token at `/userinfo`.
    public var sessionID: String
    /// `email` (OIDC Core §5.1), only with the `email` scope.
    public var email: String?
    /// `email_verified` (OIDC Core §5.1), only with the `email` scope.
    public var emailVerified: Bool?
    /// `name` (OIDC Core §5.1), only with the `profile` scope.
    public var name: String?
    /// `cnf` (RFC 7800 §3.1) with RFC 9449 §6.1's `jkt`: the DPoP key a bound session's tokens
    /// are for (docs/reference.md, "DPoP"); absent for a bearer token.
    public var confirmation: Confirmation?

    /// RFC 7800 §3.1's confirmation member, carrying only the JWK thumbprint (RFC 9449 §6.1).
    public struct Confirmation: Codable, Sendable, Equatable {
        /// `jkt`: the RFC 7638 thumbprint of the DPoP key.
        public var jkt: String

        /// The confirmation of the key whose thumbprint is `jkt`.
        public init(jkt: String) {
            self.jkt = jkt
        }
    }

    /// Claims as listed (docs/reference.md, "Access tokens").
    public init(
        issuer: String, subject: String, audience: String, clientID: String, issuedAt: Int, expiresAt: Int,
        jwtID: String, scope: String, sessionID: String, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
        confirmation: Confirmation? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.clientID = clientID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.jwtID = jwtID
        self.scope = scope
        self.sessionID = sessionID
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.confirmation = confirmation
    }

    /// The `scope` claim split into its scope tokens (RFC 6749 §3.3).
    public var scopes: [String] {
        scope.split(separator: " ").map(String.init)
    }

    /// The claims as the token carries them: the bytes of `JSONEncoder` with sorted keys and
    /// unescaped slashes (so `iss` stays byte-identical to `ISSUER_URL`), written directly
    /// (`JSONObjectWriter`, in the members' sorted order).
    public func encodedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 512)
        writer.string("aud", audience)
        writer.string("client_id", clientID)
        writer.object("cnf", present: confirmation != nil) { $0.string("jkt", confirmation?.jkt) }
        writer.string("email", email)
        writer.boolean("email_verified", emailVerified)
        writer.integer("exp", expiresAt)
        writer.integer("iat", issuedAt)
        writer.string("iss", issuer)
        writer.string("jti", jwtID)
        writer.string("name", name)
        writer.string("scope", scope)
        writer.string("sid", sessionID)
        writer.string("sub", subject)
        return writer.finished()
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case clientID = "client_id"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case jwtID = "jti"
        case scope
        case sessionID = "sid"
        case email
        case emailVerified = "email_verified"
        case name
        case confirmation = "cnf"
    }
}
