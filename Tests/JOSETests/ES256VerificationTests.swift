import Crypto
import Foundation
import JOSE
import Testing
import TestSupport

/// ES256 (RFC 7518 §3.4) tokens through ``JWS/parse(_:allowedAlgorithms:maxLength:)`` and
/// ``JWSParsed/verified(with:)``, as a relying party whose provider signs with ES256 verifies them.
@Suite struct ES256VerificationTests {
    static let both: Set<JWSAlgorithm> = [.rs256, .es256]

    /// RFC 7515 Appendix A.3.1: the JWS Compact Serialization signed with ECDSA P-256 SHA-256.
    static let rfc7515Token =
        "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static func verify(_ token: String, with key: JWSVerificationKey, allowed: Set<JWSAlgorithm> = both) throws -> JWSVerified {
        try JWS.parse(token, allowedAlgorithms: allowed).verified(with: key)
    }

    @Test func verifiesTheRFC7515ExampleToken() throws {
        let key = JWSVerificationKey.p256(try P256PublicKey(jwk: P256PublicKeyTests.rfc7515))
        let verified = try Self.verify(Self.rfc7515Token, with: key, allowed: [.es256])
        #expect(verified.header.algorithm == .es256)
        #expect(verified.payload == Data("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8))
    }

    @Test func verifiesATokenSignedBySwiftCrypto() throws {
        let privateKey = P256.Signing.PrivateKey()
        let token = try ES256Forge.signed(payload: RS256Sample.claims, key: privateKey)
        let key = try ES256Forge.verificationKey(privateKey)
        #expect(key.algorithm == .es256)
        let verified = try Self.verify(token, with: key)
        #expect(verified.payload == Data(RS256Sample.claims.utf8))
        #expect(verified.header.kid == ES256Forge.kid && verified.header.typ == "JWT")
    }

    @Test func tamperedPayloadOrSignatureFails() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try ES256Forge.verificationKey(privateKey)
        let token = try ES256Forge.signed(payload: RS256Sample.claims, key: privateKey)
        let parts = token.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(RS256Sample.claims.replacingOccurrences(of: "alice", with: "admin").utf8))
        #expect(throws: JOSEError.badSignature) { try Self.verify([parts[0], forged, parts[2]].joined(separator: "."), with: key) }
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        let tampered = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(throws: JOSEError.badSignature) { try Self.verify(tampered, with: key) }
        #expect(throws: JOSEError.badSignature) {
            try Self.verify(token, with: try ES256Forge.verificationKey(P256.Signing.PrivateKey()))
        }
    }

    @Test func derEncodedSignatureFails() throws {
        let privateKey = P256.Signing.PrivateKey()
        let token = try ES256Forge.derSigned(payload: RS256Sample.claims, key: privateKey)
        #expect(throws: JOSEError.badSignature) { try Self.verify(token, with: try ES256Forge.verificationKey(privateKey)) }
    }

    @Test func emptyOrTruncatedSignatureFails() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try ES256Forge.verificationKey(privateKey)
        let token = try ES256Forge.signed(payload: RS256Sample.claims, key: privateKey)
        let input = String(token[..<token.lastIndex(of: ".")!])
        let signature = try #require(Base64URL.decode(token[token.index(after: token.lastIndex(of: ".")!)...]))
        for cut in [Data(), signature.prefix(32), signature.prefix(63)] {
            #expect(throws: JOSEError.badSignature) { try Self.verify(input + "." + Base64URL.encode(cut), with: key) }
        }
    }

    @Test func rs256HeaderIsRefusedWithAnECKey() throws {
        // RFC 8725 §3.1: the key decides the algorithm. An RS256 token, however well signed, never meets an EC key.
        let token = try RS256Sample.validToken()
        let ecKey = try ES256Forge.verificationKey(P256.Signing.PrivateKey())
        #expect(throws: JOSEError.unsupportedAlgorithm) { try Self.verify(token, with: ecKey) }
        #expect(try Self.verify(token, with: .rsa(TestRSAKeys.a.publicKey)).payload == Data(RS256Sample.claims.utf8))
    }

    @Test func es256HeaderIsRefusedWithAnRSAKey() throws {
        let privateKey = P256.Signing.PrivateKey()
        let token = try ES256Forge.signed(payload: RS256Sample.claims, key: privateKey)
        #expect(throws: JOSEError.unsupportedAlgorithm) { try Self.verify(token, with: .rsa(TestRSAKeys.a.publicKey)) }
        // The RSA-only entry points refuse it the same way, whatever the allow-list admitted.
        #expect(throws: JOSEError.unsupportedAlgorithm) {
            try JWS.parse(token, allowedAlgorithms: Self.both).verified(with: TestRSAKeys.a.publicKey)
        }
        #expect(throws: JOSEError.unsupportedAlgorithm) {
            try JWS.verify(token, allowedAlgorithms: Self.both) { _ in TestRSAKeys.a.publicKey }
        }
        // Even a header that says ES256 over a valid RS256 signature: the RSA key is not asked.
        let rs256Signed = try TokenForge.signed(header: ES256Forge.header, payload: RS256Sample.claims, key: TestRSAKeys.a)
        #expect(throws: JOSEError.unsupportedAlgorithm) { try Self.verify(rs256Signed, with: .rsa(TestRSAKeys.a.publicKey)) }
    }

    @Test func es256IsRefusedUnlessTheCallerAllowsIt() throws {
        let privateKey = P256.Signing.PrivateKey()
        let token = try ES256Forge.signed(payload: RS256Sample.claims, key: privateKey)
        #expect(throws: JOSEError.unsupportedAlgorithm) { try JWS.parse(token, allowedAlgorithms: [.rs256]) }
        #expect(throws: JOSEError.unsupportedAlgorithm) { try JWS.parse(token, allowedAlgorithms: []) }
        #expect(throws: JOSEError.unsupportedAlgorithm) { try JWS.parse(RS256Sample.validToken(), allowedAlgorithms: [.es256]) }
        #expect(throws: Never.self) { try JWS.parse(token, allowedAlgorithms: [.es256]) }
    }

    @Test(arguments: [
        #"{"alg":"none","kid":"ec-key"}"#,
        #"{"alg":"HS256","kid":"ec-key"}"#,
        #"{"alg":"es256","kid":"ec-key"}"#,
        #"{"alg":"ES256 ","kid":"ec-key"}"#,
        #"{"alg":"ES384","kid":"ec-key"}"#,
        #"{"kid":"ec-key"}"#,
    ])
    func otherAlgorithmsAreRefusedWhenES256IsAllowed(header: String) throws {
        // Validly signed over the forged header, so only the alg check can refuse it.
        let token = try ES256Forge.signed(header: header, payload: RS256Sample.claims, key: P256.Signing.PrivateKey())
        #expect(throws: JOSEError.unsupportedAlgorithm) { try JWS.parse(token, allowedAlgorithms: Self.both) }
        #expect(throws: JOSEError.unsupportedAlgorithm) {
            try JWS.parse(TokenForge.token(header: header, payload: RS256Sample.claims), allowedAlgorithms: Self.both)
        }
    }

    @Test func critIsRefusedForES256Too() throws {
        let header = #"{"alg":"ES256","kid":"ec-key","crit":["exp"],"exp":1}"#
        let token = try ES256Forge.signed(header: header, payload: RS256Sample.claims, key: P256.Signing.PrivateKey())
        #expect(throws: JOSEError.criticalHeader) { try JWS.parse(token, allowedAlgorithms: Self.both) }
    }

    @Test(arguments: [#"[{"sub":"alice"}]"#, #""alice""#, "42", "not json"])
    func validlySignedNonObjectPayloadIsMalformed(payload: String) throws {
        let privateKey = P256.Signing.PrivateKey()
        let token = try ES256Forge.signed(payload: payload, key: privateKey)
        #expect(throws: JOSEError.malformed) { try Self.verify(token, with: try ES256Forge.verificationKey(privateKey)) }
    }

    @Test func verificationKeysCompareByKeyMaterial() throws {
        let privateKey = P256.Signing.PrivateKey()
        #expect(try ES256Forge.verificationKey(privateKey) == ES256Forge.verificationKey(privateKey))
        #expect(try ES256Forge.verificationKey(privateKey) != ES256Forge.verificationKey(P256.Signing.PrivateKey()))
        let rebuilt = try RSAPublicKey(jwk: TestRSAKeys.a.publicKey.jwk)
        #expect(JWSVerificationKey.rsa(rebuilt) == .rsa(TestRSAKeys.a.publicKey))
        #expect(JWSVerificationKey.rsa(TestRSAKeys.b.publicKey) != .rsa(TestRSAKeys.a.publicKey))
        #expect(try ES256Forge.verificationKey(privateKey) != .rsa(TestRSAKeys.a.publicKey))
        #expect(JWSVerificationKey.rsa(TestRSAKeys.a.publicKey).algorithm == .rs256)
    }
}
