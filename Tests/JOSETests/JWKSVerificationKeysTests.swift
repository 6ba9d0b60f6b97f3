import Crypto
import Foundation
import JOSE
import Testing
import TestSupport

/// ``JWKS/verificationKeys(fromJSON:)``: a provider's key set with RSA and P-256 keys side by side.
@Suite struct JWKSVerificationKeysTests {
    static func json(_ members: [String]) -> Data {
        Data((#"{"keys":["# + members.joined(separator: ",") + "]}").utf8)
    }

    static func member(_ jwk: JWK) throws -> String {
        String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self)
    }

    @Test func mixedSetYieldsRSAAndP256KeysByKid() throws {
        let ec = P256.Signing.PrivateKey()
        let ecJWK = ES256Forge.jwk(ec.publicKey, kid: "ec")
        let bareEC = ES256Forge.jwk(P256.Signing.PrivateKey().publicKey, kid: "ec-bare", alg: nil)
        let p384 = P384.Signing.PrivateKey().publicKey.rawRepresentation
        var shortX = ecJWK
        shortX.kid = "short-x"
        shortX.x = Base64URL.encode(try #require(Base64URL.decode(ecJWK.x!)).dropFirst())
        var offCurve = ecJWK
        offCurve.kid = "off-curve"
        offCurve.y = ecJWK.x
        var ecForRS256 = ecJWK
        ecForRS256.kid = "ec-says-rs256"
        ecForRS256.alg = "RS256"
        var ecForEncryption = ecJWK
        ecForEncryption.kid = "ec-enc"
        ecForEncryption.use = "enc"
        var ecWithoutKid = ecJWK
        ecWithoutKid.kid = nil
        var rsaForES256 = TestRSAKeys.b.publicKey.jwk(kid: "rsa-says-es256")
        rsaForES256.alg = "ES256"

        let members = [
            #"{"kty":"oct","kid":"hmac","k":"c2VjcmV0"}"#,
            try Self.member(ecJWK),
            #"{"kty":"EC","kid":"p384","crv":"P-384","x":"\#(Base64URL.encode(p384.prefix(48)))","y":"\#(Base64URL.encode(p384.suffix(48)))"}"#,
            try Self.member(shortX),
            try Self.member(offCurve),
            try Self.member(ecForRS256),
            try Self.member(ecForEncryption),
            try Self.member(ecWithoutKid),
            #""not an object""#,
            "42",
            #"{"kty":"EC","kid":"numeric-x","crv":"P-256","x":1,"y":2}"#,
            #"{"kid":"no-kty"}"#,
            try Self.member(TestRSAKeys.a.publicKey.jwk(kid: "rsa")),
            try Self.member(rsaForES256),
            try Self.member(bareEC),
            #"{"kty":"OKP","kid":"ed","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
        ]
        let keys = try JWKS.verificationKeys(fromJSON: Self.json(members))
        #expect(Set(keys.keys) == ["ec", "rsa", "ec-bare"])
        #expect(keys["ec"] == .p256(try P256PublicKey(jwk: ecJWK)))
        #expect(keys["ec-bare"] == .p256(try P256PublicKey(jwk: bareEC)))
        #expect(keys["rsa"] == .rsa(TestRSAKeys.a.publicKey))
        #expect(keys["ec"]?.algorithm == .es256 && keys["rsa"]?.algorithm == .rs256)

        // The keys verify what their owners sign.
        let token = try ES256Forge.signed(header: #"{"alg":"ES256","kid":"ec"}"#, payload: RS256Sample.claims, key: ec)
        let parsed = try JWS.parse(token, allowedAlgorithms: [.rs256, .es256])
        let key = try #require(parsed.header.kid.flatMap { keys[$0] })
        #expect(try parsed.verified(with: key).payload == Data(RS256Sample.claims.utf8))

        // The RSA-only view of the same set is unchanged: only the RSA key.
        let rsaKeys = try JWKS.rsaVerificationKeys(fromJSON: Self.json(members))
        #expect(Set(rsaKeys.keys) == ["rsa"])
        #expect(rsaKeys["rsa"]?.modulus == TestRSAKeys.a.publicKey.modulus)
    }

    @Test func firstUsableKeyOfAKidWinsWhateverItsType() throws {
        let ec = P256.Signing.PrivateKey()
        var unusableEC = ES256Forge.jwk(ec.publicKey, kid: "shared")
        unusableEC.crv = "P-384"
        let members = [
            try Self.member(unusableEC),
            try Self.member(TestRSAKeys.a.publicKey.jwk(kid: "shared")),
            try Self.member(ES256Forge.jwk(ec.publicKey, kid: "shared")),
            try Self.member(ES256Forge.jwk(ec.publicKey, kid: "ec-first")),
            try Self.member(TestRSAKeys.b.publicKey.jwk(kid: "ec-first")),
        ]
        let keys = try JWKS.verificationKeys(fromJSON: Self.json(members))
        #expect(keys["shared"] == .rsa(TestRSAKeys.a.publicKey))
        #expect(keys["ec-first"] == .p256(try P256PublicKey(jwk: ES256Forge.jwk(ec.publicKey))))
        #expect(keys.count == 2)
    }

    @Test func setOfOnlyUnusableMembersIsEmpty() throws {
        let members = [#"{"kty":"EC","kid":"a","crv":"P-256","x":"AA","y":"AA"}"#, #"{"kty":"oct","kid":"b"}"#]
        #expect(try JWKS.verificationKeys(fromJSON: Self.json(members)).isEmpty)
        #expect(try JWKS.verificationKeys(fromJSON: Self.json([])).isEmpty)
    }

    @Test(arguments: [#"{"keys":5}"#, "[]", #"{"keys":{}}"#, "", "not json", #"{"key":[]}"#])
    func documentThatIsNotAKeySetIsMalformed(document: String) {
        #expect(throws: JOSEError.malformed) { try JWKS.verificationKeys(fromJSON: Data(document.utf8)) }
    }

    @Test func membersInAnyOrderAndUnknownMembersAreAccepted() throws {
        // RFC 7517 §4: member order carries no meaning and unknown members are ignored.
        let ec = P256.Signing.PrivateKey()
        let jwk = ES256Forge.jwk(ec.publicKey, kid: "k1")
        let member = #"{"crv":"P-256","x5t#S256":"ignored","kid":"k1","y":"\#(jwk.y!)","use":"sig","x":"\#(jwk.x!)","kty":"EC","alg":"ES256"}"#
        let keys = try JWKS.verificationKeys(fromJSON: Self.json([member]))
        #expect(keys["k1"] == .p256(try P256PublicKey(jwk: jwk)))
    }
}
