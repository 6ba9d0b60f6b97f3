import Crypto
import Foundation
import JOSE
import Testing

@Suite struct P256PublicKeyTests {
    /// The public key of RFC 7515 Appendix A.3.1.
    static let rfc7515 = JWK(
        kty: "EC", crv: "P-256",
        x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")

    @Test func verifiesRawSignaturesOfTheKeyItWasBuiltFrom() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try P256PublicKey(jwk: ES256Forge.jwk(privateKey.publicKey))
        let message = Array("header.payload".utf8)
        let signature = try privateKey.signature(for: message).rawRepresentation
        #expect(signature.count == 64)
        #expect(key.verify(signature: signature, message: message))
        #expect(!key.verify(signature: signature, message: Array("header.payloaD".utf8)))
        let other = try P256PublicKey(jwk: ES256Forge.jwk(P256.Signing.PrivateKey().publicKey))
        #expect(!other.verify(signature: signature, message: message))
    }

    @Test func derSignaturesAreNotValid() throws {
        // RFC 7518 §3.4: the JWS signature is R || S, 64 octets; the DER form is another encoding of the
        // same signature, and accepting it would make two serializations of one token verify.
        let privateKey = P256.Signing.PrivateKey()
        let key = try P256PublicKey(jwk: ES256Forge.jwk(privateKey.publicKey))
        let message = Array("header.payload".utf8)
        let signature = try privateKey.signature(for: message)
        #expect(privateKey.publicKey.isValidSignature(signature, for: message))
        #expect(!key.verify(signature: signature.derRepresentation, message: message))
        #expect(key.verify(signature: signature.rawRepresentation, message: message))
    }

    @Test func signaturesOfAnyOtherLengthOrOutOfRangeAreNotValid() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try P256PublicKey(jwk: ES256Forge.jwk(privateKey.publicKey))
        let message = Array("header.payload".utf8)
        let raw = try privateKey.signature(for: message).rawRepresentation
        for signature in [Data(), raw.prefix(63), raw + [0], Data([0]) + raw, raw + raw] {
            #expect(!key.verify(signature: signature, message: message), "\(signature.count) octets")
        }
        // R and S must lie in [1, n-1], n the order of P-256 (FIPS 186-5 §6.4.2).
        let zero = Data(count: 32)
        let order = Data([
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ])
        for signature in [zero + zero, zero + raw.suffix(32), raw.prefix(32) + zero, order + raw.suffix(32)] {
            #expect(!key.verify(signature: signature, message: message))
        }
    }

    @Test func acceptsTheRFC7515ExampleKeyWithOrWithoutUseAndAlg() throws {
        var jwk = Self.rfc7515
        #expect(throws: Never.self) { try P256PublicKey(jwk: jwk) }
        jwk.use = "sig"
        jwk.alg = "ES256"
        #expect(try P256PublicKey(jwk: jwk) == P256PublicKey(jwk: Self.rfc7515))
    }

    @Test func refusesJWKsThatAreNotUsableP256SigningKeys() throws {
        let good = Self.rfc7515
        let x = try #require(Base64URL.decode(good.x!))
        let y = try #require(Base64URL.decode(good.y!))
        let p384 = P384.Signing.PrivateKey().publicKey.rawRepresentation
        var cases: [(String, JWK)] = []
        func variant(_ name: String, _ change: (inout JWK) -> Void) {
            var jwk = good
            change(&jwk)
            cases.append((name, jwk))
        }
        variant("kty RSA") { $0.kty = "RSA" }
        variant("kty OKP") { $0.kty = "OKP" }
        variant("no crv") { $0.crv = nil }
        variant("crv P-384") { $0.crv = "P-384" }
        variant("crv P-384 with its own coordinates") {
            $0.crv = "P-384"
            $0.x = Base64URL.encode(p384.prefix(48))
            $0.y = Base64URL.encode(p384.suffix(48))
        }
        variant("crv secp256k1") { $0.crv = "secp256k1" }
        variant("crv lowercase") { $0.crv = "p-256" }
        variant("no x") { $0.x = nil }
        variant("no y") { $0.y = nil }
        variant("31-octet x") { $0.x = Base64URL.encode(x.dropFirst()) }
        variant("33-octet x") { $0.x = Base64URL.encode([0] + x) }
        variant("31-octet y") { $0.y = Base64URL.encode(y.dropFirst()) }
        variant("padded x") { $0.x = good.x! + "=" }
        variant("standard base64 y") { $0.y = Data(y).base64EncodedString() }
        variant("point not on the curve") {
            var bent = Array(y)
            bent[31] ^= 1
            $0.y = Base64URL.encode(bent)
        }
        variant("x and y swapped") {
            $0.x = good.y
            $0.y = good.x
        }
        variant("point at infinity") {
            $0.x = Base64URL.encode([UInt8](repeating: 0, count: 32))
            $0.y = Base64URL.encode([UInt8](repeating: 0, count: 32))
        }
        variant("use enc") { $0.use = "enc" }
        variant("alg RS256") { $0.alg = "RS256" }
        variant("alg ES384") { $0.alg = "ES384" }
        variant("alg none") { $0.alg = "none" }
        for (name, jwk) in cases {
            #expect(throws: JOSEError.invalidKey, "\(name)") { try P256PublicKey(jwk: jwk) }
        }
    }

    @Test func decodedECJWKNeverCarriesThePrivateScalar() throws {
        let json = #"{"kty":"EC","crv":"P-256","x":"AA","y":"AA","d":"c2VjcmV0"}"#
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
        #expect(jwk.crv == "P-256" && jwk.x == "AA" && jwk.y == "AA")
        let reencoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(jwk)) as? [String: String]
        #expect(reencoded == ["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"])
    }
}
