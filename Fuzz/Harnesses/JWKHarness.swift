import Foundation
import JOSE

/// A JWK Set (RFC 7517 §5) as Apple's or another provider's JWKS endpoint answers it, and single
/// JWKs: both key-set readers agree, and every key they keep round-trips. A P-256
/// key's coordinates are `package`. Fuzzed by Fuzz/JWK, replayed on its corpus by
/// Tests/FuzzCorpusTests.
public enum JWKHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Data(input)
        let rsaKeys = try? JWKS.rsaVerificationKeys(fromJSON: bytes)
        if let keys = rsaKeys {
            for (kid, key) in keys {
                // A usable key survives publication and parsing unchanged.
                guard let again = try? RSAPublicKey(jwk: key.jwk(kid: kid)) else { preconditionFailure("key \(kid) did not round-trip") }
                precondition(again.modulus == key.modulus && again.exponent == key.exponent, "key \(kid) changed")
                precondition(again.jwk(kid: kid) == key.jwk(kid: kid), "JWK of \(kid) changed")
            }
        }
        let allKeys = try? JWKS.verificationKeys(fromJSON: bytes)
        // Both read the same documents as key sets.
        precondition((rsaKeys == nil) == (allKeys == nil), "one reader refused a set the other read")
        if let allKeys, let rsaKeys {
            for (kid, key) in allKeys {
                switch key {
                case .rsa(let rsa):
                    // The first usable key of a kid is RSA, so it is also the first usable RSA key.
                    guard let same = rsaKeys[kid] else { preconditionFailure("RSA key \(kid) missing from the RSA view") }
                    precondition(key == .rsa(same) && rsa.modulus == same.modulus, "RSA key \(kid) differs between views")
                case .p256(let p256):
                    precondition(key.algorithm == .es256, "P-256 key \(kid) not for ES256")
                    precondition(p256.x.count == 32 && p256.y.count == 32, "P-256 key \(kid) has short coordinates")
                    // Its coordinates make the same key again, alg and use or not.
                    for (alg, use) in [(nil, nil), ("ES256", "sig")] as [(String?, String?)] {
                        let jwk = JWK(kty: "EC", use: use, alg: alg, kid: kid, crv: "P-256", x: Base64URL.encode(p256.x), y: Base64URL.encode(p256.y))
                        guard let again = try? P256PublicKey(jwk: jwk) else { preconditionFailure("P-256 key \(kid) did not round-trip") }
                        precondition(again == p256, "P-256 key \(kid) changed")
                    }
                }
            }
            // Every kid of the RSA view is in the full view: a kid can only be taken by an earlier usable key.
            for kid in rsaKeys.keys {
                precondition(allKeys[kid] != nil, "kid \(kid) lost from the full view")
            }
        }
        if let jwk = try? JSONDecoder().decode(JWK.self, from: bytes) {
            guard let encoded = try? JSONEncoder().encode(jwk), let again = try? JSONDecoder().decode(JWK.self, from: encoded)
            else { preconditionFailure("a decoded JWK cannot be encoded") }
            precondition(again == jwk, "JWK round trip")
            _ = try? RSAPublicKey(jwk: jwk)
            if let key = try? P256PublicKey(jwk: jwk) {
                precondition(jwk.kty == "EC" && jwk.crv == "P-256", "P-256 key from kty \(jwk.kty)")
                // Never a valid signature of nothing: the check runs on arbitrary points without tripping.
                precondition(!key.verify(signature: Data(count: 64), message: []), "zero signature verified")
            }
        }
        _ = try? JSONDecoder().decode(JWKS.self, from: bytes)
    }
}
