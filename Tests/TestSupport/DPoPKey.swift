import Crypto
import Foundation
import JOSE

/// A device's DPoP key and the proofs an app builds with it (RFC 9449 §4), signed with swift-crypto's
/// P-256 as CryptoKit would, never with JOSE's own code, so the verifier is checked against an
/// independent signer.
public struct DPoPKey: Sendable {
    /// The private key, as the Secure Enclave would hold it.
    public let privateKey: P256.Signing.PrivateKey

    /// A fresh key.
    public init() {
        privateKey = P256.Signing.PrivateKey()
    }

    /// The public JWK members (RFC 7518 §6.2.1) in RFC 7638's canonical order.
    public var jwkJSON: String {
        let point = privateKey.publicKey.rawRepresentation
        return #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(point.prefix(32)) + #"","y":""#
            + Base64URL.encode(point.suffix(32)) + #""}"#
    }

    /// The RFC 7638 thumbprint, hashed here with swift-crypto over the canonical JWK.
    public var thumbprint: String {
        Base64URL.encode(Array(SHA256.hash(data: Data(jwkJSON.utf8))))
    }

    /// A proof for `method` `url` issued at `issuedAt`; every member can be changed to build a bad one.
    /// - Parameters:
    ///   - jwk: the header's `jwk` JSON; defaults to this key's public JWK.
    ///   - extraClaims: raw JSON members appended to the claims (`,"ath":"…"`).
    public func proof(
        method: String = "POST", url: String, issuedAt: Date, jti: String = UUID().uuidString, typ: String = "dpop+jwt",
        alg: String = "ES256", jwk: String? = nil, extraClaims: String = "", signer: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let header = #"{"typ":""# + typ + #"","alg":""# + alg + #"","jwk":"# + (jwk ?? jwkJSON) + "}"
        let claims = #"{"htm":""# + method + #"","htu":""# + url + #"","iat":"# + "\(Int(issuedAt.timeIntervalSince1970))"
            + #","jti":""# + jti + #"""# + extraClaims + "}"
        return try Self.signed(header: header, claims: claims, key: signer ?? privateKey)
    }

    /// A compact JWS over raw `header` and `claims` JSON, signed ES256 (raw R || S, RFC 7518 §3.4).
    public static func signed(header: String, claims: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }
}
