import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite struct AccessTokenVerifierTests {
    static let start = TokenSigning.start
    static let ring = TokenSigning.ring

    static func verifier(_ clock: ManualClock, issuer: String = TokenSigning.issuer, audience: String = TokenSigning.audience) -> AccessTokenVerifier {
        AccessTokenVerifier(issuer: issuer, audience: audience, clock: clock)
    }

    static func sign(_ clock: ManualClock, issuer: String = TokenSigning.issuer, key: SigningKey? = nil) throws -> SignedTokens {
        let signer = TokenSigner(issuer: issuer, audience: TokenSigning.audience, accessTokenTTL: .seconds(900), idTokenTTL: .seconds(1800), clock: clock)
        return try signer.sign(TokenSigning.contents, key: key ?? ring.active!)
    }

    @Test func acceptsOwnAccessTokenUntilItExpires() throws {
        let clock = ManualClock(Self.start)
        let tokens = try Self.sign(clock)
        let verifier = Self.verifier(clock)
        #expect(try verifier.verify(tokens.accessToken, ring: Self.ring) == tokens.accessTokenClaims)
        clock.advance(by: 899)
        #expect(try verifier.verify(tokens.accessToken, ring: Self.ring).subject == "user-123")
        clock.advance(by: 1)
        #expect(throws: AccessTokenVerificationError.expired) { try verifier.verify(tokens.accessToken, ring: Self.ring) }
    }

    @Test func refusesAnIDToken() throws {
        let clock = ManualClock(Self.start)
        let idToken = try #require(try Self.sign(clock).idToken)
        #expect(throws: AccessTokenVerificationError.wrongType) { try Self.verifier(clock).verify(idToken, ring: Self.ring) }
    }

    @Test func refusesAnotherIssuerOrAudience() throws {
        let clock = ManualClock(Self.start)
        let token = try Self.sign(clock).accessToken
        #expect(throws: AccessTokenVerificationError.wrongIssuer) {
            try Self.verifier(clock, issuer: "https://api.example.com/oidc/").verify(token, ring: Self.ring)
        }
        #expect(throws: AccessTokenVerificationError.wrongAudience) {
            try Self.verifier(clock, audience: "other-service").verify(token, ring: Self.ring)
        }
        let foreign = try Self.sign(clock, issuer: "https://evil.example").accessToken
        #expect(throws: AccessTokenVerificationError.wrongIssuer) { try Self.verifier(clock).verify(foreign, ring: Self.ring) }
    }

    @Test func refusesKeysOutsideThePublishedRing() throws {
        let clock = ManualClock(Self.start)
        let token = try Self.sign(clock).accessToken
        let otherRing = try KeyRing(keys: [SigningKey(privateKey: TestRSAKeys.b, state: .active, createdAt: Self.start, activatedAt: Self.start)])
        #expect(throws: AccessTokenVerificationError.unknownKey) { try Self.verifier(clock).verify(token, ring: otherRing) }

        // A token signed by key C while it was active verifies while C is published, and not after its window.
        let retiredC = try #require(Self.ring.retired.first)
        let activeC = SigningKey(privateKey: retiredC.privateKey, state: .active, createdAt: Self.start, activatedAt: Self.start)
        let signer = TokenSigner(issuer: TokenSigning.issuer, audience: TokenSigning.audience, accessTokenTTL: .seconds(7200), idTokenTTL: .seconds(60), clock: clock)
        let byC = try signer.sign(TokenSigning.contents, key: activeC).accessToken
        clock.advance(by: 3599)
        #expect(try Self.verifier(clock).verify(byC, ring: Self.ring).subject == "user-123")
        clock.advance(by: 1)
        #expect(throws: AccessTokenVerificationError.unknownKey) { try Self.verifier(clock).verify(byC, ring: Self.ring) }
    }

    @Test func refusesATamperedPayload() throws {
        let clock = ManualClock(Self.start)
        let token = try Self.sign(clock).accessToken
        let parts = token.split(separator: ".").map(String.init)
        let payload = try #require(Base64URL.decode(parts[1]))
        var claims = try #require(JSONSerialization.jsonObject(with: payload) as? [String: Any])
        claims["sub"] = "admin"
        let forgedPayload = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        let tampered = [parts[0], forgedPayload, parts[2]].joined(separator: ".")
        #expect(throws: AccessTokenVerificationError.badSignature) { try Self.verifier(clock).verify(tampered, ring: Self.ring) }
    }

    @Test("a token whose header names another algorithm is refused, whatever its signature", arguments: ["none", "HS256", "RS512"])
    func refusesOtherAlgorithms(alg: String) throws {
        let clock = ManualClock(Self.start)
        let token = try Self.sign(clock).accessToken
        let parts = token.split(separator: ".").map(String.init)
        let kid = try #require(Self.ring.active?.kid)
        let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"at+jwt","kid":"\#(kid)"}"#.utf8))
        #expect(throws: AccessTokenVerificationError.unsupportedAlgorithm) {
            try Self.verifier(clock).verify([header, parts[1], parts[2]].joined(separator: "."), ring: Self.ring)
        }
    }

    @Test func refusesGarbage() throws {
        let clock = ManualClock(Self.start)
        #expect(throws: AccessTokenVerificationError.malformed) { try Self.verifier(clock).verify("not-a-jwt", ring: Self.ring) }
        #expect(throws: AccessTokenVerificationError.malformed) {
            try Self.verifier(clock).verify(String(repeating: "a", count: 17 * 1024), ring: Self.ring)
        }
    }
}
