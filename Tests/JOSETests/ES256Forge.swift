import Crypto
import Foundation
import JOSE

/// ES256 tokens and EC JWKs made with swift-crypto rather than with JOSE's own code: what an OpenID Provider
/// that signs with ES256 (RFC 7518 §3.4) sends and publishes.
enum ES256Forge {
    static let kid = "ec-key"
    static let header = #"{"alg":"ES256","typ":"JWT","kid":"ec-key"}"#

    /// The public JWK of `key` (RFC 7518 §6.2.1): x and y are the two halves of the raw point.
    static func jwk(_ key: P256.Signing.PublicKey, kid: String? = kid, alg: String? = "ES256") -> JWK {
        let point = key.rawRepresentation
        return JWK(
            kty: "EC", use: "sig", alg: alg, kid: kid,
            crv: "P-256", x: Base64URL.encode(point.prefix(32)), y: Base64URL.encode(point.suffix(32)))
    }

    /// The verification key JOSE builds from the public JWK of `key`.
    static func verificationKey(_ key: P256.Signing.PrivateKey) throws -> JWSVerificationKey {
        .p256(try P256PublicKey(jwk: jwk(key.publicKey)))
    }

    /// A compact JWS over `header` and `payload`, signed as RFC 7518 §3.4 says: raw R || S.
    static func signed(header: String = header, payload: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header, payload: payload)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// The same, but with the DER `ECDSA-Sig-Value` most libraries produce, which a JWS must not carry.
    static func derSigned(header: String = header, payload: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header, payload: payload)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).derRepresentation)
    }

    private static func signingInput(header: String, payload: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
    }
}
