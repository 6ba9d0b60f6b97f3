import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite struct TokenSignerTests {
    static let issuer = "https://api.example.com/oidc"
    static let audience = "clanboards-mobile"
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// An active key A, a next key B and a retired key C (still published until `start + 3600`).
    static let ring: KeyRing = try! KeyRing(keys: [
        SigningKey(privateKey: TestRSAKeys.a, state: .active, createdAt: start, activatedAt: start),
        SigningKey(privateKey: TestRSAKeys.b, state: .next, createdAt: start),
        SigningKey(
            privateKey: TestRSAKeys.c, state: .retired, createdAt: start, activatedAt: start,
            retiredAt: start, publishedUntil: start.addingTimeInterval(3600)),
    ])

    static let contents = TokenContents(
        subject: "user-123", clientID: "clanboards-mobile", scopes: ["openid", "email", "profile"],
        sessionID: "session-9", authTime: start.addingTimeInterval(-100),
        sessionExpiresAt: start.addingTimeInterval(86_400), nonce: "n-0S6_WzA2Mj",
        profile: .init(email: "a@privaterelay.appleid.com", emailVerified: true, name: "Ada Lovelace", givenName: "Ada", familyName: "Lovelace"))

    static func signer(_ clock: ManualClock, accessTTL: Duration = .seconds(900), idTTL: Duration = .seconds(1800)) -> TokenSigner {
        TokenSigner(issuer: issuer, audience: audience, accessTokenTTL: accessTTL, idTokenTTL: idTTL, clock: clock)
    }

    /// Verifies with JOSE against the ring's published JWKS, the way a backend service would.
    static func verifyAgainstJWKS(_ token: String, at date: Date) throws -> (header: [String: String], claims: [String: Any]) {
        let jwksJSON = try JSONEncoder().encode(ring.jwks(at: date))
        let jwks = try JSONDecoder().decode(JWKS.self, from: jwksJSON)
        let verified = try JWS.verify(token, allowedAlgorithms: [.rs256]) { header in
            try jwks.keys.first { $0.kid == header.kid }.map { try RSAPublicKey(jwk: $0) }
        }
        let headerData = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        let header = try #require(JSONSerialization.jsonObject(with: headerData) as? [String: String])
        let claims = try #require(JSONSerialization.jsonObject(with: verified.payload) as? [String: Any])
        return (header, claims)
    }

    @Test func mintedTokensVerifyAgainstThePublishedJWKSWithExactlyTheSpecHeadersAndClaims() throws {
        let clock = ManualClock(Self.start.addingTimeInterval(0.75))
        let tokens = try Self.signer(clock).sign(Self.contents, ring: Self.ring)
        let kid = TestRSAKeys.a.publicKey.thumbprint
        #expect(tokens.kid == kid)
        #expect(tokens.expiresIn == 900)
        let iat = 1_750_000_000

        let access = try Self.verifyAgainstJWKS(tokens.accessToken, at: clock.now)
        #expect(access.header == ["alg": "RS256", "typ": "at+jwt", "kid": kid])
        #expect(Set(access.claims.keys) == ["iss", "sub", "aud", "client_id", "iat", "exp", "jti", "scope", "sid", "email", "email_verified", "name"])
        #expect(access.claims["iss"] as? String == Self.issuer)
        #expect(access.claims["sub"] as? String == "user-123")
        #expect(access.claims["aud"] as? String == Self.audience)
        #expect(access.claims["client_id"] as? String == "clanboards-mobile")
        #expect(access.claims["iat"] as? Int == iat)
        #expect(access.claims["exp"] as? Int == iat + 900)
        #expect(access.claims["scope"] as? String == "openid email profile")
        #expect(access.claims["sid"] as? String == "session-9")
        #expect(access.claims["email"] as? String == "a@privaterelay.appleid.com")
        #expect(access.claims["email_verified"] as? Bool == true)
        #expect(access.claims["name"] as? String == "Ada Lovelace")
        let jti = try #require(access.claims["jti"] as? String)
        #expect(Base64URL.decode(jti).map(\.count) ?? 0 >= 16)
        let rawPayload = String(decoding: try #require(Base64URL.decode(tokens.accessToken.split(separator: ".")[1])), as: UTF8.self)
        #expect(rawPayload.contains(#""iss":"https://api.example.com/oidc""#), "iss is written byte-for-byte, without escaped slashes")

        let idToken = try #require(tokens.idToken)
        let id = try Self.verifyAgainstJWKS(idToken, at: clock.now)
        #expect(id.header == ["alg": "RS256", "typ": "JWT", "kid": kid])
        #expect(Set(id.claims.keys) == ["iss", "sub", "aud", "iat", "exp", "auth_time", "sid", "nonce", "at_hash", "email", "email_verified", "name", "given_name", "family_name"])
        #expect(id.claims["iss"] as? String == Self.issuer)
        #expect(id.claims["sub"] as? String == "user-123")
        #expect(id.claims["aud"] as? String == "clanboards-mobile")
        #expect(id.claims["iat"] as? Int == iat)
        #expect(id.claims["exp"] as? Int == iat + 1800)
        #expect(id.claims["auth_time"] as? Int == iat - 100)
        #expect(id.claims["sid"] as? String == "session-9")
        #expect(id.claims["nonce"] as? String == "n-0S6_WzA2Mj")
        #expect(id.claims["given_name"] as? String == "Ada")
        #expect(id.claims["family_name"] as? String == "Lovelace")
        #expect(tokens.idTokenClaims?.accessTokenHash == id.claims["at_hash"] as? String)
    }

    @Test func atHashMatchesAnIndependentComputation() throws {
        let tokens = try Self.signer(ManualClock(Self.start)).sign(Self.contents, ring: Self.ring)
        let idToken = try #require(tokens.idToken)
        let claims = try Self.verifyAgainstJWKS(idToken, at: Self.start).claims
        // sha256sum, base64 from Foundation, then the RFC 4648 §5 alphabet by hand: nothing shared with the signer.
        let hexOutput = try CommandLineTool.run(["sha256sum"], input: Data(tokens.accessToken.utf8))
        let hex = String(decoding: hexOutput, as: UTF8.self).prefix(64)
        var digest = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            digest.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        let expected = Data(digest.prefix(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(expected.count == 22)
        #expect(claims["at_hash"] as? String == expected)
    }

    @Test func scopeDecidesProfileClaimsAndTheIDToken() throws {
        let signer = Self.signer(ManualClock(Self.start))
        var contents = Self.contents
        contents.scopes = ["openid"]
        let openidOnly = try signer.sign(contents, ring: Self.ring)
        let idClaims = try Self.verifyAgainstJWKS(try #require(openidOnly.idToken), at: Self.start).claims
        #expect(Set(idClaims.keys) == ["iss", "sub", "aud", "iat", "exp", "auth_time", "sid", "nonce", "at_hash"])
        let accessClaims = try Self.verifyAgainstJWKS(openidOnly.accessToken, at: Self.start).claims
        #expect(Set(accessClaims.keys) == ["iss", "sub", "aud", "client_id", "iat", "exp", "jti", "scope", "sid"])

        contents.scopes = ["email"]
        contents.nonce = nil
        let noOpenID = try signer.sign(contents, ring: Self.ring)
        #expect(noOpenID.idToken == nil)
        let emailClaims = try Self.verifyAgainstJWKS(noOpenID.accessToken, at: Self.start).claims
        #expect(emailClaims["email"] as? String == "a@privaterelay.appleid.com")
        #expect(emailClaims["name"] == nil)
    }

    @Test("no token outlives its session (reference: Refresh tokens and sessions): exp is capped at the session's end")
    func expiryCappedAtSessionEnd() throws {
        let signer = Self.signer(ManualClock(Self.start), accessTTL: .seconds(900), idTTL: .seconds(1800))
        var contents = Self.contents
        contents.sessionExpiresAt = Self.start.addingTimeInterval(120)
        let tokens = try signer.sign(contents, ring: Self.ring)
        let sessionEnd = Int(Self.start.timeIntervalSince1970) + 120
        #expect(tokens.accessTokenClaims.expiresAt == sessionEnd)
        #expect(tokens.idTokenClaims?.expiresAt == sessionEnd)
        #expect(tokens.expiresIn == 120, "expires_in agrees with the access token's exp")

        contents.sessionExpiresAt = Self.start.addingTimeInterval(86_400)
        let uncapped = try signer.sign(contents, ring: Self.ring)
        #expect(uncapped.accessTokenClaims.expiresAt == Int(Self.start.timeIntervalSince1970) + 900)
        #expect(uncapped.idTokenClaims?.expiresAt == Int(Self.start.timeIntervalSince1970) + 1800)
    }

    @Test func everyTokenHasAFreshJTI() throws {
        let signer = Self.signer(ManualClock(Self.start))
        let jtis = try (0..<20).map { _ in try signer.sign(Self.contents, ring: Self.ring).accessTokenClaims.jwtID }
        #expect(Set(jtis).count == 20)
    }

    @Test func onlyTheActiveKeySigns() throws {
        let signer = Self.signer(ManualClock(Self.start))
        let next = try #require(Self.ring.next)
        #expect(throws: TokenSigningError.keyNotActive(kid: next.kid)) { try signer.sign(Self.contents, key: next) }
        #expect(throws: TokenSigningError.noActiveKey) { try signer.sign(Self.contents, ring: .empty) }
    }
}
