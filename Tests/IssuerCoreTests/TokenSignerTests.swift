import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite struct TokenSignerTests {
    @Test func mintedTokensVerifyAgainstThePublishedJWKSWithExactlyTheSpecHeadersAndClaims() throws {
        let clock = ManualClock(TokenSigning.start.addingTimeInterval(0.75))
        let tokens = try TokenSigning.signer(clock).sign(TokenSigning.contents, ring: TokenSigning.ring)
        let kid = TestRSAKeys.a.publicKey.thumbprint
        #expect(tokens.kid == kid)
        #expect(tokens.expiresIn == 900)
        let iat = 1_750_000_000

        let access = try TokenSigning.verifyAgainstJWKS(tokens.accessToken, at: clock.now)
        #expect(access.header == ["alg": "RS256", "typ": "at+jwt", "kid": kid])
        #expect(Set(access.claims.keys) == ["iss", "sub", "aud", "client_id", "iat", "exp", "jti", "scope", "sid", "email", "email_verified", "name"])
        #expect(access.claims["iss"] as? String == TokenSigning.issuer)
        #expect(access.claims["sub"] as? String == "user-123")
        #expect(access.claims["aud"] as? String == TokenSigning.audience)
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
        let id = try TokenSigning.verifyAgainstJWKS(idToken, at: clock.now)
        #expect(id.header == ["alg": "RS256", "typ": "JWT", "kid": kid])
        #expect(Set(id.claims.keys) == ["iss", "sub", "aud", "iat", "exp", "auth_time", "sid", "nonce", "at_hash", "email", "email_verified", "name", "given_name", "family_name"])
        #expect(id.claims["iss"] as? String == TokenSigning.issuer)
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
        let tokens = try TokenSigning.signer(ManualClock(TokenSigning.start)).sign(TokenSigning.contents, ring: TokenSigning.ring)
        let idToken = try #require(tokens.idToken)
        let claims = try TokenSigning.verifyAgainstJWKS(idToken, at: TokenSigning.start).claims
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
        let signer = TokenSigning.signer(ManualClock(TokenSigning.start))
        var contents = TokenSigning.contents
        contents.scopes = ["openid"]
        let openidOnly = try signer.sign(contents, ring: TokenSigning.ring)
        let idClaims = try TokenSigning.verifyAgainstJWKS(try #require(openidOnly.idToken), at: TokenSigning.start).claims
        #expect(Set(idClaims.keys) == ["iss", "sub", "aud", "iat", "exp", "auth_time", "sid", "nonce", "at_hash"])
        let accessClaims = try TokenSigning.verifyAgainstJWKS(openidOnly.accessToken, at: TokenSigning.start).claims
        #expect(Set(accessClaims.keys) == ["iss", "sub", "aud", "client_id", "iat", "exp", "jti", "scope", "sid"])

        contents.scopes = ["email"]
        contents.nonce = nil
        let noOpenID = try signer.sign(contents, ring: TokenSigning.ring)
        #expect(noOpenID.idToken == nil)
        let emailClaims = try TokenSigning.verifyAgainstJWKS(noOpenID.accessToken, at: TokenSigning.start).claims
        #expect(emailClaims["email"] as? String == "a@privaterelay.appleid.com")
        #expect(emailClaims["name"] == nil)
    }

    @Test("no token outlives its session (reference: Refresh tokens and sessions): exp is capped at the session's end")
    func expiryCappedAtSessionEnd() throws {
        let signer = TokenSigning.signer(ManualClock(TokenSigning.start), accessTTL: .seconds(900), idTTL: .seconds(1800))
        var contents = TokenSigning.contents
        contents.sessionExpiresAt = TokenSigning.start.addingTimeInterval(120)
        let tokens = try signer.sign(contents, ring: TokenSigning.ring)
        let sessionEnd = Int(TokenSigning.start.timeIntervalSince1970) + 120
        #expect(tokens.accessTokenClaims.expiresAt == sessionEnd)
        #expect(tokens.idTokenClaims?.expiresAt == sessionEnd)
        #expect(tokens.expiresIn == 120, "expires_in agrees with the access token's exp")

        contents.sessionExpiresAt = TokenSigning.start.addingTimeInterval(86_400)
        let uncapped = try signer.sign(contents, ring: TokenSigning.ring)
        #expect(uncapped.accessTokenClaims.expiresAt == Int(TokenSigning.start.timeIntervalSince1970) + 900)
        #expect(uncapped.idTokenClaims?.expiresAt == Int(TokenSigning.start.timeIntervalSince1970) + 1800)
    }

    @Test func everyTokenHasAFreshJTI() throws {
        let signer = TokenSigning.signer(ManualClock(TokenSigning.start))
        let jtis = try (0..<20).map { _ in try signer.sign(TokenSigning.contents, ring: TokenSigning.ring).accessTokenClaims.jwtID }
        #expect(Set(jtis).count == 20)
    }

    @Test func onlyTheActiveKeySigns() throws {
        let signer = TokenSigning.signer(ManualClock(TokenSigning.start))
        let next = try #require(TokenSigning.ring.next)
        #expect(throws: TokenSigningError.keyNotActive(kid: next.kid)) { try signer.sign(TokenSigning.contents, key: next) }
        #expect(throws: TokenSigningError.noActiveKey) { try signer.sign(TokenSigning.contents, ring: .empty) }
    }
}
