import Foundation
import JOSE
import JWTKit
import Testing
import TestSupport

/// Interoperability with jwt-kit, an independent JOSE implementation (swift-crypto/BoringSSL based).
@Suite struct JWTKitInteropTests {
    struct Claims: JWTPayload, Equatable {
        var sub: SubjectClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    struct PlainClaims: Codable, Equatable {
        var sub: String
        var exp: Int
    }

    static let expiry = Int(Date().timeIntervalSince1970) + 3600

    @Test func jwtKitVerifiesOurTokenWithOurJWKS() async throws {
        let key = TestRSAKeys.a
        let jwk = key.publicKey.jwk
        let payload = try JSONEncoder().encode(PlainClaims(sub: "alice", exp: Self.expiry))
        let token = try JWS.sign(payload: payload, header: JWSHeader(kid: jwk.kid), key: key)

        let jwks = String(decoding: try JSONEncoder().encode(JOSE.JWKS(keys: [jwk])), as: UTF8.self)
        let collection = try await JWTKeyCollection().add(jwksJSON: jwks)
        let verified = try await collection.verify(token, as: Claims.self)
        #expect(verified.sub.value == "alice")
        #expect(Int(verified.exp.value.timeIntervalSince1970) == Self.expiry)
    }

    @Test func jwtKitRejectsOurTokenUnderAnotherKey() async throws {
        let jwk = TestRSAKeys.b.publicKey.jwk(kid: "k")
        let payload = try JSONEncoder().encode(PlainClaims(sub: "alice", exp: Self.expiry))
        let token = try JWS.sign(payload: payload, header: JWSHeader(kid: "k"), key: TestRSAKeys.a)
        let jwks = String(decoding: try JSONEncoder().encode(JOSE.JWKS(keys: [jwk])), as: UTF8.self)
        let collection = try await JWTKeyCollection().add(jwksJSON: jwks)
        await #expect(throws: (any Error).self) { try await collection.verify(token, as: Claims.self) }
    }

    @Test func weVerifyJWTKitTokensFromOurPEM() async throws {
        let key = TestRSAKeys.a
        let rsa = try Insecure.RSA.PrivateKey(pem: try key.pemPKCS8())
        let collection = await JWTKeyCollection().add(rsa: rsa, digestAlgorithm: .sha256, kid: "jwt-kit")
        let token = try await collection.sign(Claims(sub: "bob", exp: .init(value: Date(timeIntervalSince1970: Double(Self.expiry)))), kid: "jwt-kit")

        var lookedUp: [String?] = []
        let verified = try JWS.verify(token, allowedAlgorithms: [.rs256]) { header in
            lookedUp.append(header.kid)
            return header.kid == "jwt-kit" ? key.publicKey : nil
        }
        #expect(lookedUp == ["jwt-kit"])
        #expect(verified.header.algorithm == .rs256)
        #expect(try JSONDecoder().decode(PlainClaims.self, from: verified.payload) == PlainClaims(sub: "bob", exp: Self.expiry))

        // And the same token must not verify under an unrelated key.
        #expect(throws: JOSEError.badSignature) {
            try JWS.verify(token, allowedAlgorithms: [.rs256]) { _ in TestRSAKeys.b.publicKey }
        }
    }

    @Test func jwtKitJWKIsUsableByUs() async throws {
        // A JWK written by jwt-kit (from the key's public components) must convert to the same key here.
        let rsa = try Insecure.RSA.PrivateKey(pem: try TestRSAKeys.b.pemPKCS8())
        let (modulus, exponent) = try rsa.publicKey.getKeyPrimitives()
        let foreign = JWTKit.JWK.rsa(
            .rs256, identifier: "foreign",
            modulus: Base64URL.encode(modulus), exponent: Base64URL.encode(exponent)
        )
        let json = try JSONEncoder().encode(JWTKit.JWKS(keys: [foreign]))
        let keys = try JOSE.JWKS.rsaVerificationKeys(fromJSON: json)
        #expect(keys["foreign"]?.modulus == TestRSAKeys.b.publicKey.modulus)
        #expect(keys["foreign"]?.thumbprint == TestRSAKeys.b.publicKey.thumbprint)
    }

    @Test func hs256SignedWithThePublicKeyIsRefusedBeforeKeyLookup() async throws {
        // Algorithm confusion: an attacker HMACs the token with bytes of our public key (RFC 8725 §2.1).
        let publicKey = TestRSAKeys.a.publicKey
        for secret in [Data(publicKey.modulus), try JSONEncoder().encode(publicKey.jwk)] {
            let collection = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "test-key")
            let token = try await collection.sign(Claims(sub: "mallory", exp: .init(value: Date(timeIntervalSinceNow: 3600))), kid: "test-key")
            let header = try #require(Base64URL.decode(token.split(separator: ".")[0]))
            #expect(try JSONDecoder().decode(JWSHeader.self, from: header).alg == "HS256")
            RS256Sample.expectRefused(token, with: .unsupportedAlgorithm, keyLookedUp: false)
        }
    }

    @Test func weVerifyJWTKitES256TokensThroughItsJWKS() async throws {
        // What a provider that signs ID tokens with ES256 does: sign with P-256 and publish the EC JWK.
        let privateKey = ES256PrivateKey()
        let parameters = try #require(privateKey.publicKey.parameters)
        let foreign = JWTKit.JWK.ecdsa(.es256, identifier: "jwt-kit-ec", x: parameters.x, y: parameters.y, curve: .p256)
        let jwks = try JSONEncoder().encode(JWTKit.JWKS(keys: [foreign]))
        let keys = try JOSE.JWKS.verificationKeys(fromJSON: jwks)
        let key = try #require(keys["jwt-kit-ec"])
        #expect(key.algorithm == .es256)

        let collection = await JWTKeyCollection().add(ecdsa: privateKey, kid: "jwt-kit-ec")
        let token = try await collection.sign(Claims(sub: "carol", exp: .init(value: Date(timeIntervalSince1970: Double(Self.expiry)))), kid: "jwt-kit-ec")
        let parsed = try JWS.parse(token, allowedAlgorithms: [.rs256, .es256])
        #expect(parsed.header.algorithm == .es256 && parsed.header.kid == "jwt-kit-ec")
        let verified = try parsed.verified(with: key)
        #expect(try JSONDecoder().decode(PlainClaims.self, from: verified.payload) == PlainClaims(sub: "carol", exp: Self.expiry))

        // Not under another P-256 key, nor with the header's algorithm swapped for an RSA key.
        let other = try #require(ES256PrivateKey().publicKey.parameters)
        let otherKey = try P256PublicKey(jwk: JOSE.JWK(kty: "EC", crv: "P-256", x: other.x, y: other.y))
        #expect(throws: JOSEError.badSignature) { try parsed.verified(with: .p256(otherKey)) }
        #expect(throws: JOSEError.unsupportedAlgorithm) { try parsed.verified(with: .rsa(TestRSAKeys.a.publicKey)) }
    }

    @Test func es256TokenIsRefusedBeforeKeyLookup() async throws {
        let collection = await JWTKeyCollection().add(ecdsa: ES256PrivateKey(), kid: "test-key")
        let token = try await collection.sign(Claims(sub: "mallory", exp: .init(value: Date(timeIntervalSinceNow: 3600))), kid: "test-key")
        let header = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        #expect(try JSONDecoder().decode(JWSHeader.self, from: header).alg == "ES256")
        RS256Sample.expectRefused(token, with: .unsupportedAlgorithm, keyLookedUp: false)
    }
}
