import JOSE

/// The claims of an ID token (OIDC Core §2, docs/reference.md, "ID tokens").
///
/// Times are NumericDate seconds (RFC 7519 §2), as they travel in the token.
public struct IDTokenClaims: Codable, Sendable, Equatable {
    /// The JWS `typ` header of an ID token (RFC 7519 §5.1), deliberately not ``AccessTokenClaims/type``.
    public static let type = "JWT"

    /// `iss` (OIDC Core §2): `ISSUER_URL`, exactly.
    public var issuer: String
    /// `sub` (OIDC Core §2): the internal user id.
    public var subject: String
    /// `aud` (OIDC Core §2): the client id.
    public var audience: String
    /// `iat` (OIDC Core §2).
    public var issuedAt: Int
    /// `exp` (OIDC Core §2): `iat + ISSUER_ID_TOKEN_TTL`.
    public var expiresAt: Int
    /// `auth_time` (OIDC Core §2): when the user signed in, which a refresh does not change.
    public var authTime: Int
    /// `sid` (OIDC Front-Channel Logout §3): the session.
    public var sessionID: String
    /// `nonce` (OIDC Core §2): the raw value the client sent, when it sent one.
    public var nonce: String?
    /// `at_hash` (OIDC Core §3.1.3.6): see ``accessTokenHash(of:)``.
    public var accessTokenHash: String
    /// `email` (OIDC Core §5.1), only with the `email` scope.
    public var email: String?
    /// `email_verified` (OIDC Core §5.1), only with the `email` scope.
    public var emailVerified: Bool?
    /// `name` (OIDC Core §5.1), only with the `profile` scope.
    public var name: String?
    /// `given_name` (OIDC Core §5.1), only with the `profile` scope.
    public var givenName: String?
    /// `family_name` (OIDC Core §5.1), only with the `profile` scope.
    public var familyName: String?

    /// Claims as listed (docs/reference.md, "ID tokens").
    public init(
        issuer: String, subject: String, audience: String, issuedAt: Int, expiresAt: Int, authTime: Int,
        sessionID: String, nonce: String? = nil, accessTokenHash: String, email: String? = nil,
        emailVerified: Bool? = nil, name: String? = nil, givenName: String? = nil, familyName: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        self.sessionID = sessionID
        self.nonce = nonce
        self.accessTokenHash = accessTokenHash
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
    }

    /// `at_hash` (OIDC Core §3.1.3.6): base64url of the left half of the SHA-256 of the ASCII access
    /// token — SHA-256 because the ID token's `alg` is RS256.
    public static func accessTokenHash(of accessToken: String) -> String {
        let digest = JOSEDigest.sha256(Array(accessToken.utf8))
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    /// OIDC Core §3.3.2.11 `c_hash` for an RS256 token: the same left half of SHA-256, of the code.
    public static func codeHash(of code: String) -> String {
        accessTokenHash(of: code)
    }

    /// The claims as the token carries them: the bytes of `JSONEncoder` with sorted keys and
    /// unescaped slashes, written directly (`JSONObjectWriter`, in the members' sorted order).
    public func encodedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 512)
        writer.string("at_hash", accessTokenHash)
        writer.string("aud", audience)
        writer.integer("auth_time", authTime)
        writer.string("email", email)
        writer.boolean("email_verified", emailVerified)
        writer.integer("exp", expiresAt)
        writer.string("family_name", familyName)
        writer.string("given_name", givenName)
        writer.integer("iat", issuedAt)
        writer.string("iss", issuer)
        writer.string("name", name)
        writer.string("nonce", nonce)
        writer.string("sid", sessionID)
        writer.string("sub", subject)
        return writer.finished()
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case authTime = "auth_time"
        case sessionID = "sid"
        case nonce
        case accessTokenHash = "at_hash"
        case email
        case emailVerified = "email_verified"
        case name
        case givenName = "given_name"
        case familyName = "family_name"
    }
}
