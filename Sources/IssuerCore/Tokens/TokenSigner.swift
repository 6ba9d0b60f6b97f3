import Foundation
import JOSE

/// Signs the issuer's tokens (docs/reference.md, "Access tokens" and "ID tokens"): a pure function of the contents, the
/// signing key and the clock.
///
/// RSA signing is the dominant cost of every token request (docs/design.md, "Keys and tokens"), so the signer holds
/// no lock and is no actor: callers on any number of tasks sign in parallel, each with its own
/// OpenSSL context. The key comes in as a parameter — whatever ring the caller currently holds —
/// so there is no global state and a ring swap never blocks a signature.
public struct TokenSigner: Sendable {
    /// `iss` of every token: `ISSUER_URL`, exactly (docs/reference.md, "Configuration").
    public let issuer: String
    /// `aud` of access tokens: `ISSUER_AUDIENCE` (docs/reference.md, "Configuration", RFC 9068 §2.2).
    public let audience: String
    /// `ISSUER_ACCESS_TOKEN_TTL` (docs/reference.md, "Configuration", RFC 7519 §4.1.6).
    public let accessTokenTTL: Duration
    /// `ISSUER_ID_TOKEN_TTL` (docs/reference.md, "Configuration", RFC 7519 §4.1.6).
    public let idTokenTTL: Duration
    /// Where `iat` comes from (docs/reference.md, "Configuration", RFC 7519 §4.1.6).
    public let clock: any WallClock

    /// A signer for `ISSUER_URL`, `ISSUER_AUDIENCE` and the token lifetimes (docs/reference.md, "Configuration").
    public init(issuer: String, audience: String, accessTokenTTL: Duration, idTokenTTL: Duration, clock: any WallClock) {
        self.issuer = issuer
        self.audience = audience
        self.accessTokenTTL = accessTokenTTL
        self.idTokenTTL = idTokenTTL
        self.clock = clock
    }

    /// Signs with the ring's active key (docs/reference.md, "Signing keys": the active key signs everything).
    public func sign(_ contents: TokenContents, ring: KeyRing) throws(TokenSigningError) -> SignedTokens {
        guard let active = ring.active else { throw .noActiveKey }
        return try sign(contents, key: active)
    }

    /// Signs an access token (RFC 9068, docs/reference.md, "Access tokens") and, when the scope includes `openid`, an ID
    /// token (OIDC Core §2, docs/reference.md, "ID tokens") whose `at_hash` binds it to that access token.
    ///
    /// Profile claims follow the scope (OIDC Core §5.4): `email`/`email_verified` with `email`,
    /// `name` (and in the ID token `given_name`/`family_name`) with `profile`.
    public func sign(_ contents: TokenContents, key: SigningKey) throws(TokenSigningError) -> SignedTokens {
        guard key.state == .active else { throw .keyNotActive(kid: key.kid) }
        let issuedAt = Int(clock.now.timeIntervalSince1970.rounded(.down))
        // docs/reference.md, "Refresh tokens and sessions": no token outlives its session.
        let sessionEnd = Int(contents.sessionExpiresAt.timeIntervalSince1970.rounded(.down))
        let accessExpiresAt = min(issuedAt + accessTokenTTL.wholeSeconds, sessionEnd)
        let idExpiresAt = min(issuedAt + idTokenTTL.wholeSeconds, sessionEnd)
        let scopes = Set(contents.scopes)
        let email = scopes.contains("email") ? contents.profile : TokenContents.Profile()
        let profile = scopes.contains("profile") ? contents.profile : TokenContents.Profile()

        let accessClaims = AccessTokenClaims(
            issuer: issuer, subject: contents.subject, audience: audience, clientID: contents.clientID,
            issuedAt: issuedAt, expiresAt: accessExpiresAt, jwtID: Self.randomJWTID(),
            scope: contents.scopes.joined(separator: " "), sessionID: contents.sessionID,
            email: email.email, emailVerified: email.emailVerified, name: profile.name,
            confirmation: contents.dpopThumbprint.map(AccessTokenClaims.Confirmation.init(jkt:)))
        let accessToken = try signJWS(accessClaims.encodedJSON(), type: AccessTokenClaims.type, key: key)

        var idClaims: IDTokenClaims?
        var idToken: String?
        if contents.includesIDToken, scopes.contains("openid") {
            let claims = IDTokenClaims(
                issuer: issuer, subject: contents.subject, audience: contents.clientID,
                issuedAt: issuedAt, expiresAt: idExpiresAt,
                authTime: Int(contents.authTime.timeIntervalSince1970.rounded(.down)),
                sessionID: contents.sessionID, nonce: contents.nonce,
                accessTokenHash: IDTokenClaims.accessTokenHash(of: accessToken),
                email: email.email, emailVerified: email.emailVerified,
                name: profile.name, givenName: profile.givenName, familyName: profile.familyName)
            idClaims = claims
            idToken = try signJWS(claims.encodedJSON(), type: IDTokenClaims.type, key: key)
        }
        return SignedTokens(
            accessToken: accessToken, accessTokenClaims: accessClaims, idToken: idToken, idTokenClaims: idClaims,
            expiresIn: max(0, accessExpiresAt - issuedAt), kid: key.kid)
    }

    private func signJWS(_ payload: [UInt8], type: String, key: SigningKey) throws(TokenSigningError) -> String {
        do {
            return try JWS.sign(payload: payload, header: JWSHeader(alg: .rs256, typ: type, kid: key.kid), key: key.privateKey)
        } catch {
            throw .signingFailed("\(error)")
        }
    }

    /// 128 random bits (RFC 7519 §4.1.7 asks for a negligible collision probability) from the
    /// system CSPRNG, base64url-encoded.
    private static func randomJWTID() -> String {
        // Two 64-bit draws, not sixteen 8-bit ones: each draw is a call into the kernel's CSPRNG.
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeBytes(of: &words) { Base64URL.encode($0) }
    }
}
